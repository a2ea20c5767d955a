import { z } from "zod";
import { resourceRoutes } from "../http/resource-routes";
import {
  PROFILE_API_VERSIONS,
  profileNameSchema,
  profilePatchSchema,
  profilePutSchema,
} from "./profile-schema";

export const profileRoutes = resourceRoutes({
  name: "authenticationProfiles",
  collectionRoute: "authenticationProfiles",
  itemRoute: "authenticationProfiles/{authenticationProfileName}",
  apiVersions: PROFILE_API_VERSIONS,
  collectionPath: z.object({}),
  itemPath: z.object({ authenticationProfileName: profileNameSchema }),
  putBody: profilePutSchema,
  patchBody: profilePatchSchema,
  service: (services) => services.profiles,
});
