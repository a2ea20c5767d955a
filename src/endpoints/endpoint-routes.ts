import { resourceRoutes } from "../http/resource-routes";
import { endpointPathSchema, INSTANCE_ROUTE, instancePathSchema } from "./endpoint-path";
import { ENDPOINT_API_VERSIONS, endpointPatchSchema, endpointPutSchema } from "./endpoint-schema";

export const endpointRoutes = resourceRoutes({
  name: "queueEndpoints",
  collectionRoute: `${INSTANCE_ROUTE}/endpoints`,
  itemRoute: `${INSTANCE_ROUTE}/endpoints/{endpointName}`,
  apiVersions: ENDPOINT_API_VERSIONS,
  collectionPath: instancePathSchema,
  itemPath: endpointPathSchema,
  putBody: endpointPutSchema,
  patchBody: endpointPatchSchema,
  service: (services) => services.endpoints,
});
