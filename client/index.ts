export type { AccessToken, GetTokenOptions, TokenCredential } from "@azure/core-auth";
export { AssessmentsClient } from "./assessments-client";
export { AUTO_NAME_SUFFIX_LENGTH, autoName, randomSuffix } from "./auto-name";
export type {
  ApiVersions,
  CallOptions,
  ConnectionOptions,
  CredentialAuthentication,
  KeyAuthentication,
  ListOptions,
  MatchOptions,
  PageOptions,
  RetryOptions,
  TwinServiceClientOptions,
  WriteOptions,
} from "./client-options";
export { DEFAULT_API_VERSIONS, DEFAULT_RETRY } from "./client-options";
export {
  type CreateEndpointOptions,
  EndpointsClient,
  type RedeliverDeadLettersOptions,
} from "./endpoints-client";
export { type CreateEventRouteOptions, EventRoutesClient } from "./event-routes-client";
export { EventsClient } from "./events-client";
export type { PagedAsyncIterable } from "./paged-list";
export { ProfilesClient } from "./profiles-client";
export {
  type AssessmentRef,
  endpointId,
  eventRouteId,
  type ProjectRef,
  parseEndpointId,
  parseEventRouteId,
  parseRoleAssignmentId,
  parseTwinsInstanceId,
  ROLE_ASSIGNMENTS_SEGMENT,
  roleAssignmentPath,
  type TwinsInstanceRef,
  twinsInstanceId,
} from "./resource-paths";
export { RoleAssignmentsClient } from "./role-assignments-client";
export { BUILT_IN_ROLE_IDS, roleDefinitionGuid } from "./role-definitions";
export { ServiceError } from "./service-error";
export { staticTokenCredential } from "./static-token-credential";
export { TwinServiceClient } from "./twin-service-client";
export type * from "./types";
