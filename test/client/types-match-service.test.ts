import type { z } from "zod";
import type * as client from "../../client";
import type { clusterAssessmentSchema } from "../../src/assessments/assessment-schema";
import type { queueEndpointSchema } from "../../src/endpoints/endpoint-schema";
import type { healthReportSchema } from "../../src/health/health-check";
import type { redeliverResultSchema } from "../../src/http/routes/endpoint-actions";
import type { authenticationProfileSchema } from "../../src/profiles/profile-schema";

/**
 * The client writes its types out rather than importing the service's (which would pull the
 * service's runtime in); this holds them in step. It fails to compile when either side drifts.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const holds = <T extends true>(): T => true as T;

describe("the client's types", () => {
  it("are the service's response types", () => {
    expect([
      holds<Same<client.AuthenticationProfile, z.infer<typeof authenticationProfileSchema>>>(),
      holds<Same<client.QueueEndpoint, z.infer<typeof queueEndpointSchema>>>(),
      holds<Same<client.ClusterAssessment, z.infer<typeof clusterAssessmentSchema>>>(),
      holds<Same<client.HealthReport, z.infer<typeof healthReportSchema>>>(),
      holds<Same<client.RedeliveryResult, z.infer<typeof redeliverResultSchema>>>(),
    ]).toEqual([true, true, true, true, true]);
  });
});
