export type { EndpointAuthenticationType, EndpointIdentity } from "../../client/types";
export {
  AuthenticationProfile,
  type AuthenticationProfileArgs,
  type AuthenticationProfileState,
} from "./authentication-profile";
export {
  type GetClusterAssessmentOperationArgs,
  type GetClusterAssessmentOperationOutputArgs,
  type GetClusterAssessmentOperationResult,
  getClusterAssessmentOperation,
  getClusterAssessmentOperationOutput,
} from "./cluster-assessment";
export {
  EVENT_ROUTE_SECRET_OUTPUTS,
  EventRoute,
  type EventRouteArgs,
  type EventRouteState,
} from "./event-route";
export {
  type EndpointIdentityArgs,
  type IdentityBasedQueueEndpointArgs,
  type KeyBasedQueueEndpointArgs,
  QUEUE_ENDPOINT_SECRET_OUTPUTS,
  QueueEndpoint,
  type QueueEndpointArgs,
  type QueueEndpointState,
} from "./queue-endpoint";
export type { ServiceConnectionArgs } from "./resource-connection";
export { RoleAssignment, type RoleAssignmentArgs, type RoleAssignmentState } from "./role-assignment";
export { CONFIG_NAMESPACE, ENVIRONMENT } from "./service-connection";
