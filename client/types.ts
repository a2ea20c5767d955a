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

/** As the service answers: `SharedAccessKey=***` in the connection strings, the SAS query as `***`. */
export interface QueueEndpoint {
  id: string;
  name: string;
  twinsInstanceId: string;
  queuePrimaryConnectionString: string;
  queueSecondaryConnectionString: string;
  deadLetterStorageSecret?: string;
  /** Who created and last changed it, and when. */
  systemData: SystemData;
}

export interface QueueEndpointInput {
  queuePrimaryConnectionString: string;
  queueSecondaryConnectionString: string;
  deadLetterStorageSecret?: string;
}

export interface QueueEndpointPatch {
  queuePrimaryConnectionString?: string;
  queueSecondaryConnectionString?: string;
  /** `null` removes the dead-letter location. */
  deadLetterStorageSecret?: string | null;
}

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
  /** Also those an earlier run redelivered (marked `redelivered`). */
  force?: boolean;
}

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

/** The service's built-in roles: Owner (everything), Contributor (all but role assignments), Reader, and two of its own. */
export type BuiltInRoleName = "Owner" | "Contributor" | "Reader" | "Twin Events Sender" | "Assessment Writer";

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
