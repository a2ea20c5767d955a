import { RESOURCE_API_VERSIONS } from "../../common/api-versions";
import { QUEUE_ENDPOINT_PATH } from "../../common/arm-path";
import { allowListFromConfig } from "../../endpoints/endpoint-allow-list";
import { endpointExamples } from "../../endpoints/endpoint-examples";
import { endpointPathSchema, instancePathSchema } from "../../endpoints/endpoint-path";
import { endpointPatchSchema, endpointPutSchema, queueEndpointSchema } from "../../endpoints/endpoint-schema";
import { readableSecretsProblems } from "../../endpoints/endpoint-secrets";
import { readableIdentityProblems } from "../../endpoints/identity-endpoint";
import type { ManagedIdentity } from "../../endpoints/managed-identity";
import { deleteRoute, getRoute, listRoute, patchRoute, putRoute, resourceSpec } from "../resource-operations";
import type { RouteOperation } from "../route";
import { redeliverOperation } from "./endpoint-actions";

const endpoints = resourceSpec({
  noun: "queue endpoint",
  tag: "QueueEndpoint",
  collectionRoute: QUEUE_ENDPOINT_PATH.collection.route,
  apiVersions: RESOURCE_API_VERSIONS,
  collectionPath: instancePathSchema,
  itemPath: endpointPathSchema,
  putBody: endpointPutSchema,
  moreBodyProblems: (body, services) => {
    const allowList = allowListFromConfig(services.config);
    return [
      ...readableSecretsProblems(body, allowList),
      ...readableIdentityProblems(body, {
        allowList,
        attachedIdentities: services.config.ENDPOINT_USER_ASSIGNED_IDENTITIES,
      }),
    ];
  },
  resourceSchema: queueEndpointSchema,
  examples: endpointExamples,
  service: (services) => services.endpoints,
  deleteConflict:
    "event routes name the endpoint (EndpointInUse, naming those the caller may read and counting the others): delete them or point them elsewhere first",
  // ARM's own rule for giving a resource a user-assigned identity: whoever names it must be
  // allowed to assign it, or any endpoint owner could send with any team's identity.
  linked: {
    action: "Microsoft.ManagedIdentity/userAssignedIdentities/assign/action",
    id: (_path, body) => userAssignedIdentityOf(body),
    patchId: (_path, body) => userAssignedIdentityOf(body),
  },
});

function userAssignedIdentityOf(body: { identity?: ManagedIdentity }): string | undefined {
  return body.identity?.type === "UserAssigned" ? body.identity.userAssignedIdentity : undefined;
}

/** The operations of the queueEndpoints rows of the route table. */
export const endpointOperations = {
  list: listRoute(endpoints),
  get: getRoute(endpoints),
  put: putRoute(endpoints),
  delete: deleteRoute(endpoints),
  patch: patchRoute(endpoints, endpointPatchSchema),
  redeliverDeadLetters: redeliverOperation,
} satisfies Record<string, RouteOperation>;
