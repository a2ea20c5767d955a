import type { z } from "zod";
import type * as client from "../../client";
import { ROLE_ASSIGNMENTS_SEGMENT as CLIENT_SEGMENT } from "../../client/resource-paths";
import { BUILT_IN_ROLE_IDS } from "../../client/role-definitions";
import type { clusterAssessmentSchema } from "../../src/assessments/assessment-schema";
import { BUILT_IN_ROLES } from "../../src/auth/role-definitions";
import type {
  endpointPatchSchema,
  endpointPutSchema,
  queueEndpointSchema,
} from "../../src/endpoints/endpoint-schema";
import type { eventRoutePutSchema, eventRouteSchema } from "../../src/event-routes/event-route-schema";
import type { healthReportSchema } from "../../src/health/health-check";
import type { redeliverRequestSchema, redeliverResultSchema } from "../../src/http/routes/endpoint-actions";
import type {
  testEventRouteFilterRequestSchema,
  testEventRouteFilterResultSchema,
} from "../../src/http/routes/event-route-filter-test-routes";
import type { authenticationProfileSchema } from "../../src/profiles/profile-schema";
import { ROLE_ASSIGNMENTS_SEGMENT } from "../../src/role-assignments/assignment-scopes";
import type {
  roleAssignmentPutSchema,
  roleAssignmentSchema,
} from "../../src/role-assignments/role-assignment-schema";

/**
 * The client writes its types out rather than importing the service's (which would pull the
 * service's runtime in); this holds them in step. It fails to compile when either side drifts.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Every value of A is a value of B: what the client sends, the service takes. */
type Within<A, B> = [A] extends [B] ? true : false;
const holds = <T extends true>(): T => true as T;

describe("the client's types", () => {
  it("are the service's response types", () => {
    expect([
      holds<Same<client.AuthenticationProfile, z.infer<typeof authenticationProfileSchema>>>(),
      holds<Same<client.QueueEndpoint, z.infer<typeof queueEndpointSchema>>>(),
      holds<Same<client.ClusterAssessment, z.infer<typeof clusterAssessmentSchema>>>(),
      holds<Same<client.HealthReport, z.infer<typeof healthReportSchema>>>(),
      holds<Same<client.RedeliveryResult, z.infer<typeof redeliverResultSchema>>>(),
      holds<Same<client.RoleAssignment, z.infer<typeof roleAssignmentSchema>>>(),
      holds<Same<client.EventRoute, z.infer<typeof eventRouteSchema>>>(),
      holds<Same<client.TestEventRouteFilterResult, z.infer<typeof testEventRouteFilterResultSchema>>>(),
    ]).toEqual([true, true, true, true, true, true, true, true]);
  });

  it("send queue endpoints of either kind the service takes, and only those", () => {
    type Put = z.input<typeof endpointPutSchema>;
    type Patch = z.input<typeof endpointPatchSchema>;
    type RequiredKeys<T> = keyof { [K in keyof T as undefined extends T[K] ? never : K]: T[K] };
    type KeyBasedPut = Extract<Put, { queuePrimaryConnectionString: unknown }>;
    type IdentityBasedPut = Extract<Put, { authenticationType: "IdentityBased" }>;
    expect([
      holds<Within<client.QueueEndpointInput, Put>>(),
      holds<Within<client.KeyBasedQueueEndpointInput, KeyBasedPut>>(),
      holds<Within<client.IdentityBasedQueueEndpointInput, IdentityBasedPut>>(),
      // Every field the service requires of each kind, the client requires too.
      holds<Same<RequiredKeys<KeyBasedPut>, RequiredKeys<client.KeyBasedQueueEndpointInput>>>(),
      holds<Same<RequiredKeys<IdentityBasedPut>, RequiredKeys<client.IdentityBasedQueueEndpointInput>>>(),
      holds<Within<client.QueueEndpointPatch, Patch>>(),
      holds<Same<client.EndpointIdentity, NonNullable<IdentityBasedPut["identity"]>>>(),
      holds<Same<client.EndpointAuthenticationType, client.QueueEndpoint["authenticationType"]>>(),
    ]).toEqual([true, true, true, true, true, true, true, true]);
  });

  it("send role assignments the service takes", () => {
    expect(holds<Within<client.RoleAssignmentInput, z.input<typeof roleAssignmentPutSchema>>>()).toBe(true);
  });

  it("send event routes the service takes, with every field it requires", () => {
    type Put = z.input<typeof eventRoutePutSchema>;
    // Within: what the client sends is a body the service takes. Required: the client's input has
    // every field the service requires (the echoes id, name and systemData are optional there).
    type RequiredKeys<T> = keyof { [K in keyof T as undefined extends T[K] ? never : K]: T[K] };
    expect([
      holds<Within<client.EventRouteInput, Put>>(),
      holds<Same<RequiredKeys<Put>, keyof client.EventRouteInput>>(),
    ]).toEqual([true, true]);
  });

  it("redeliver dead letters with the body the service takes, every reason of it", () => {
    type Input = z.input<typeof redeliverRequestSchema>;
    expect([
      holds<Same<client.RedeliverDeadLettersInput, Input>>(),
      holds<Same<client.DeadLetterReason, NonNullable<Input["reason"]>>>(),
    ]).toEqual([true, true]);
  });

  it("try a route filter with a body the service takes", () => {
    type Input = z.input<typeof testEventRouteFilterRequestSchema>;
    expect(holds<Within<client.TestEventRouteFilterInput, Input>>()).toBe(true);
  });

  it("name the service's built-in roles, and its role-assignment path", () => {
    const names: client.BuiltInRoleName[] = [
      "Owner",
      "Contributor",
      "Reader",
      "Managed Identity Operator",
      "Twin Events Sender",
      "Assessment Writer",
    ];
    expect(names).toEqual(BUILT_IN_ROLES.map((role) => role.roleName));
    expect(Object.entries(BUILT_IN_ROLE_IDS)).toEqual(
      BUILT_IN_ROLES.map((role) => [role.roleName, role.name]),
    );
    expect(CLIENT_SEGMENT).toBe(ROLE_ASSIGNMENTS_SEGMENT);
  });
});
