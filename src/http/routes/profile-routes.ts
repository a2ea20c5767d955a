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
import type { RouteDefinition } from "../route";

const NAMES = { authenticationProfileName: profileNameSchema };

const profiles = resourceSpec({
  noun: "authentication profile",
  tag: "AuthenticationProfile",
  collectionRoute: AUTHENTICATION_PROFILE_PATH.collection.route,
  itemRoute: AUTHENTICATION_PROFILE_PATH.route,
  apiVersions: RESOURCE_API_VERSIONS,
  collectionPath: armPathSchema(AUTHENTICATION_PROFILE_PATH.collection, NAMES),
  itemPath: armPathSchema(AUTHENTICATION_PROFILE_PATH, NAMES),
  putBody: profilePutSchema,
  resourceSchema: authenticationProfileSchema,
  examples: profileExamples,
  service: (services) => services.profiles,
  // A profile's id is its name; it is authorized at its path.
  pathOf: (profile) => AUTHENTICATION_PROFILE_PATH.id({ authenticationProfileName: profile.id }),
});

export const profileRoutes: RouteDefinition[] = [
  listRoute("authenticationProfiles-list", profiles),
  getRoute("authenticationProfiles-get", profiles),
  putRoute("authenticationProfiles-put", profiles),
  deleteRoute("authenticationProfiles-delete", profiles),
  patchRoute("authenticationProfiles-patch", profiles, profilePatchSchema),
];
