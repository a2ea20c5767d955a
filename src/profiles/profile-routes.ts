import { z } from "zod";
import { resourceRoutes } from "../http/resource-routes";
import { profileExamples } from "./profile-examples";
import {
  authenticationProfileSchema,
  PROFILE_API_VERSIONS,
  profileNameSchema,
  profilePatchSchema,
  profilePutSchema,
} from "./profile-schema";

export const profileRoutes = resourceRoutes({
  name: "authenticationProfiles",
  noun: "authentication profile",
  tag: "AuthenticationProfile",
  collectionRoute: "authenticationProfiles",
  itemRoute: "authenticationProfiles/{authenticationProfileName}",
  apiVersions: PROFILE_API_VERSIONS,
  collectionPath: z.object({}),
  itemPath: z.object({ authenticationProfileName: profileNameSchema }),
  putBody: profilePutSchema,
  patchBody: profilePatchSchema,
  resourceSchema: authenticationProfileSchema,
  examples: profileExamples,
  service: (services) => services.profiles,
});
