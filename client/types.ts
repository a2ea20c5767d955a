/**
 * The wire shapes of the service, as a caller sees them (docs/api.md). Written out
 * here rather than inferred from src/: the client must not pull the service's runtime in. A test
 * (test/client/types-match-service.test.ts) holds them in step with the service's zod schemas.
 */

/** Every single-resource result carries the ETag the service answered with, for conditional writes. */
export type WithEtag<T> = T & { readonly etag: string };

/** A PUT's result: the resource, its ETag, and whether the PUT created it (201) or replaced it (200). */
export type PutResult<T> = WithEtag<T> & { readonly created: boolean };

/** One page of a list; `nextLink` is absent on the last page. */
export interface Page<T> {
  value: T[];
  nextLink?: string;
}

export interface ErrorDetail {
  code: string;
  message: string;
  target?: string;
}

export interface AuthenticationProfile {
  id: string;
  authenticationProfileName: string;
  /** A JSON object serialized as a string, returned exactly as sent. */
  authenticationProfileContent: string;
  /** Who created and last changed it, and when. */
  systemData: SystemData;
}

export interface AuthenticationProfileInput {
  authenticationProfileContent: string;
}

export interface AuthenticationProfilePatch {
  authenticationProfileContent?: string;
}

/**
 * How the service authenticates to an endpoint's topic and dead-letter container: with the
 * endpoint's connection strings and SAS URL (`KeyBased`, the default), or with a managed identity of
 * the service (`IdentityBased`, no secret). Fixed when the endpoint is created: a PUT or PATCH that
 * changes it is refused (400 naming `authenticationType`); delete the endpoint and create it again.
 */
export type EndpointAuthenticationType = "KeyBased" | "IdentityBased";

/**
 * The managed identity an identity-based endpoint sends and dead-letters with: the service's
 * system-assigned identity (also what an absent `identity` means), or a user-assigned identity
 * attached to the service for endpoints (its ARM id, one of ENDPOINT_USER_ASSIGNED_IDENTITIES).
 * With a bearer token, naming a user-assigned identity also needs
 * `Microsoft.ManagedIdentity/userAssignedIdentities/assign/action` on it.
 */
export type EndpointIdentity =
  | { type: "SystemAssigned" }
  | {
      type: "UserAssigned";
      /** `/subscriptions/{id}/resourceGroups/{group}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/{name}`. */
      userAssignedIdentity: string;
    };

/** As the service answers: `SharedAccessKey=***` in the connection strings, the SAS query as `***`. */
export interface KeyBasedQueueEndpoint {
  id: string;
  name: string;
  twinsInstanceId: string;
  authenticationType: "KeyBased";
  queuePrimaryConnectionString: string;
  queueSecondaryConnectionString: string;
  deadLetterStorageSecret?: string;
  /** Who created and last changed it, and when. */
  systemData: SystemData;
}

/** As the service answers, whole: nothing of an identity-based endpoint is secret. */
export interface IdentityBasedQueueEndpoint {
  id: string;
  name: string;
  twinsInstanceId: string;
  authenticationType: "IdentityBased";
  /** `sb://<namespace host>/`. */
  endpointUri: string;
  /** The topic. */
  entityPath: string;
  /** `https://<account>.blob.core.windows.net/<container>`, no query. */
  deadLetterUri?: string;
  /** Absent: the service's system-assigned identity. */
  identity?: EndpointIdentity;
  /** Who created and last changed it, and when. */
  systemData: SystemData;
}

/** An endpoint as the service answers; `authenticationType` tells the two kinds apart. */
export type QueueEndpoint = KeyBasedQueueEndpoint | IdentityBasedQueueEndpoint;

/** A key-based endpoint to write: its connection strings and SAS URL are its credentials. */
export interface KeyBasedQueueEndpointInput {
  /** The default: may be left out. */
  authenticationType?: "KeyBased";
  queuePrimaryConnectionString: string;
  queueSecondaryConnectionString: string;
  /** `{storage endpoint}/{container}?{SAS token}` (`sp=cw`; `sp=rcwl` to redeliver). */
  deadLetterStorageSecret?: string;
  // The other kind's fields: a body mixing both is refused (400 naming them), so it does not compile.
  endpointUri?: never;
  entityPath?: never;
  deadLetterUri?: never;
  identity?: never;
}

/** An identity-based endpoint to write: no secret; the service's managed identity needs roles there. */
export interface IdentityBasedQueueEndpointInput {
  authenticationType: "IdentityBased";
  /** `sb://<namespace host>/`. */
  endpointUri: string;
  /** The topic. */
  entityPath: string;
  /** `https://<account>.blob.core.windows.net/<container>`, with no query (no SAS). */
  deadLetterUri?: string;
  /** Absent: the service's system-assigned identity. */
  identity?: EndpointIdentity;
  queuePrimaryConnectionString?: never;
  queueSecondaryConnectionString?: never;
  deadLetterStorageSecret?: never;
}

/** A PUT body: `authenticationType` absent means `KeyBased`. */
export type QueueEndpointInput = KeyBasedQueueEndpointInput | IdentityBasedQueueEndpointInput;

/** Changes to a key-based endpoint. */
export interface KeyBasedQueueEndpointPatch {
  /** When sent, it must be the endpoint's own (a change is refused). */
  authenticationType?: "KeyBased";
  queuePrimaryConnectionString?: string;
  queueSecondaryConnectionString?: string;
  /** `null` removes the dead-letter location. */
  deadLetterStorageSecret?: string | null;
  endpointUri?: never;
  entityPath?: never;
  deadLetterUri?: never;
  identity?: never;
}

/** Changes to an identity-based endpoint. */
export interface IdentityBasedQueueEndpointPatch {
  /** When sent, it must be the endpoint's own (a change is refused). */
  authenticationType?: "IdentityBased";
  endpointUri?: string;
  entityPath?: string;
  /** `null` removes the dead-letter location. */
  deadLetterUri?: string | null;
  identity?: EndpointIdentity;
  queuePrimaryConnectionString?: never;
  queueSecondaryConnectionString?: never;
  deadLetterStorageSecret?: never;
}

/** A PATCH body: any subset of the fields of the endpoint's own kind. */
export type QueueEndpointPatch = KeyBasedQueueEndpointPatch | IdentityBasedQueueEndpointPatch;

/** Which of an instance's events go to which of its endpoints. */
export interface EventRoute {
  id: string;
  name: string;
  /** An endpoint of the same instance. */
  endpointName: string;
  /** Azure Digital Twins' filter language, e.g. `type = 'Microsoft.DigitalTwins.Twin.Update' AND $body.temperature > 30`. */
  filter: string;
  /** Who created and last changed it, and when. */
  systemData: SystemData;
}

/** A route is replaced whole (no PATCH); its endpoint must exist when it is written. */
export interface EventRouteInput {
  endpointName: string;
  filter: string;
}

/** What `eventRoutes.testFilter` tries: a route filter, and the event to try it on (not sent). */
export interface TestEventRouteFilterInput {
  filter: string;
  event: CloudEvent;
}

/** Whether the filter lets the event through, as delivery would decide it. */
export interface TestEventRouteFilterResult {
  matches: boolean;
  /**
   * When it does not match: the comparison that decided it and what the event holds there, e.g.
   * `type = 'Twin.Update' was false: the event's type is 'Twin.Create'`. For people, not to parse.
   */
  reason?: string;
}

/** A CloudEvents 1.0 event in its JSON form; extension attributes are kept. */
export interface CloudEvent {
  id: string;
  source: string;
  specversion: "1.0";
  type: string;
  time?: string;
  subject?: string;
  datacontenttype?: string;
  dataschema?: string;
  data?: unknown;
  data_base64?: string;
  [extension: string]: unknown;
}

/** Which dead letters `redeliverDeadLetters` re-queues: those written from `from` to `to` (inclusive). */
export interface RedeliverDeadLettersInput {
  /** ISO 8601. */
  from?: string;
  to?: string;
  /** Only those whose `deadletterreason` is this, compared exactly. */
  reason?: DeadLetterReason;
  /** Also those an earlier run redelivered (marked `redelivered`). */
  force?: boolean;
}

/** Why an event was dead-lettered: a dead letter's `deadletterreason` metadata. */
export type DeadLetterReason = "MaxDeliveryAttemptsExceeded" | "TtlExpired" | "MessageRefused";

/** What a redelivery run did; repeat it to retry the `failed`. */
export interface RedeliveryResult {
  requeued: number;
  skipped: number;
  failed: number;
}

export interface IngestResult {
  accepted: number;
}

export interface PerfDataSettings {
  percentile: string;
  timeRange: string;
  perfDataEndTime?: string;
  perfDataStartTime?: string;
}

export interface ClusterAssessmentSettings {
  cloudLocation: string;
  category: string;
  consolidation: string;
  currency: string;
  environmentType: string;
  licensingProgram: string;
  pricingTier: string;
  savingsOptions: string;
  sizingCriteria: string;
  discountPercentage?: number;
  performanceData?: PerfDataSettings;
  scalingFactor?: number;
}

export interface ClusterAssessmentDetails {
  confidenceRatingInPercentage: number;
  createdTimestamp: string;
  machineCount: number;
  pricesTimestamp: string;
  status: string;
  totalMonthlyCost: number;
  updatedTimestamp: string;
  webAppCount: number;
  webServerCount: number;
}

export interface AssessmentScope {
  serverGroupId?: string;
}

/** Who created and last changed a resource (an object id, or a Functions key's name), and when (ISO 8601 UTC). */
export interface SystemData {
  createdAt?: string;
  createdBy?: string;
  createdByType?: string;
  lastModifiedAt?: string;
  lastModifiedBy?: string;
  lastModifiedByType?: string;
}

/** The lookup result, flat, with the fields and nesting of the seed. */
export interface ClusterAssessment {
  id: string;
  name: string;
  type: string;
  eTag: string;
  provisioningState: string;
  details: ClusterAssessmentDetails;
  settings: ClusterAssessmentSettings;
  scope?: AssessmentScope;
  systemData: SystemData;
}

/** What the producing system PUTs (master key); the server sets id, name, type, eTag, systemData. */
export interface ClusterAssessmentInput {
  provisioningState: string;
  details: ClusterAssessmentDetails;
  settings: ClusterAssessmentSettings;
  scope?: AssessmentScope;
}

export interface HealthReport {
  status: "ok" | "unavailable";
  checks: Record<string, "ok" | "unavailable">;
  /** Why a check is unavailable, when the service knows (a secret setting not there yet). */
  reasons?: Record<string, string>;
}

/**
 * The service's built-in roles: Owner (everything), Contributor (all but role assignments), Reader,
 * Managed Identity Operator (read and assign user-assigned identities: what naming one in an
 * identity-based endpoint needs at that identity), and two of its own.
 */
export type BuiltInRoleName =
  | "Owner"
  | "Contributor"
  | "Reader"
  | "Managed Identity Operator"
  | "Twin Events Sender"
  | "Assessment Writer";

/** Who a role assignment is for: informational, `User` when not given. */
export type PrincipalType = "User" | "ServicePrincipal" | "Group";

/** A role held by a principal at a scope and below it. */
export interface RoleAssignment {
  /** `{scope}/providers/Microsoft.Authorization/roleAssignments/{name}` (`/providers/…` at the root). */
  id: string;
  /** A GUID. */
  name: string;
  type: "Microsoft.Authorization/roleAssignments";
  /** `/`, `/authenticationProfiles[/{name}]` or an ARM resource id. */
  scope: string;
  /** The object id of the user, group or service principal (`oid` in its tokens). */
  principalId: string;
  principalType: string;
  /** `/providers/Microsoft.Authorization/roleDefinitions/{guid}`. */
  roleDefinitionId: string;
  roleDefinitionName: string;
  systemData: SystemData;
}

/** A role assignment to create: the principal, and the role by name or by id (one of them). */
export type RoleAssignmentInput = {
  principalId: string;
  principalType?: PrincipalType;
} & (
  | { roleDefinitionName: BuiltInRoleName; roleDefinitionId?: never }
  | {
      /** `/providers/Microsoft.Authorization/roleDefinitions/{guid}`, or the GUID alone. */
      roleDefinitionId: string;
      roleDefinitionName?: never;
    }
);
