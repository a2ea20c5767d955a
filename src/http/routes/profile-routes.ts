import { RESOURCE_API_VERSIONS } from "../../common/api-versions";
import { AUTHENTICATION_PROFILE_PATH } from "../../common/arm-path";
import { armPathSchema } from "../../common/arm-path-schema";
import { profileExamples } from "../../profiles/profile-examples";
import {
  authenticationProfileSchema,
  profileNameSchema,
  profilePatchSchema,
  profilePutSchema,
} from "../../profiles/profile-schema";
import { deleteRoute, getRoute, listRoute, patchRoute, putRoute, resourceSpec } from "../resource-operations";
import type { RouteOperation } from "../route";

const NAMES = { authenticationProfileName: profileNameSchema };

const profiles = resourceSpec({
  noun: "authentication profile",
  tag: "AuthenticationProfile",
  collectionRoute: AUTHENTICATION_PROFILE_PATH.collection.route,
  apiVersions: RESOURCE_API_VERSIONS,
  collectionPath: armPathSchema(AUTHENTICATION_PROFILE_PATH.collection, NAMES),
  itemPath: armPathSchema(AUTHENTICATION_PROFILE_PATH, NAMES),
  putBody: profilePutSchema,
  resourceSchema: authenticationProfileSchema,
  examples: profileExamples,
  service: (services) => services.profiles,
});

/** The operations of the authenticationProfiles rows of the route table. */
export const profileOperations = {
  list: listRoute(profiles),
  get: getRoute(profiles),
  put: putRoute(profiles),
  delete: deleteRoute(profiles),
  patch: patchRoute(profiles, profilePatchSchema),
} satisfies Record<string, RouteOperation>;
