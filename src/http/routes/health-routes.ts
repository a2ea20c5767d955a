import { checkHealth, healthReportSchema } from "../../health/health-check";
import type { RouteOperation } from "../route";

export const healthOperation: RouteOperation = {
  doc: {
    summary: "Readiness: 200 when every dependency answers, else 503 naming the one that does not",
    tag: "Operations",
    responses: [
      {
        status: 200,
        description: "Every dependency answers",
        schema: healthReportSchema,
        example: { status: "ok", checks: { cosmos: "ok", storage: "ok" } },
      },
      {
        status: 503,
        description:
          "A dependency does not answer, or a secret setting is not there yet: `secrets`, only while the encryption key is an unresolved Key Vault reference, with `reasons` saying so (Retry-After is set)",
        schema: healthReportSchema,
        headers: ["Retry-After"],
        example: {
          status: "unavailable",
          checks: { cosmos: "ok", storage: "ok", secrets: "unavailable" },
          reasons: { secrets: "SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference" },
        },
      },
    ],
    errors: [],
  },
  handler: async (_request, _context, { healthProbes }) => {
    const report = await checkHealth(healthProbes);
    const headers: Record<string, string> = report.status === "ok" ? {} : { "Retry-After": "5" };
    return { status: report.status === "ok" ? 200 : 503, jsonBody: report, headers };
  },
};
