import { resourceRoutes } from "../http/resource-routes";
import { endpointExamples } from "./endpoint-examples";
import { endpointPathSchema, INSTANCE_ROUTE, instancePathSchema } from "./endpoint-path";
import {
  ENDPOINT_API_VERSIONS,
  endpointPatchSchema,
  endpointPutSchema,
  queueEndpointSchema,
} from "./endpoint-schema";

export const endpointRoutes = resourceRoutes({
  name: "queueEndpoints",
  noun: "queue endpoint",
  tag: "QueueEndpoint",
  collectionRoute: `${INSTANCE_ROUTE}/endpoints`,
  itemRoute: `${INSTANCE_ROUTE}/endpoints/{endpointName}`,
  apiVersions: ENDPOINT_API_VERSIONS,
  collectionPath: instancePathSchema,
  itemPath: endpointPathSchema,
  putBody: endpointPutSchema,
  patchBody: endpointPatchSchema,
  resourceSchema: queueEndpointSchema,
  examples: endpointExamples,
  service: (services) => services.endpoints,
});
