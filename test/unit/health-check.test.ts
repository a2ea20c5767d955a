import { checkHealth, healthReportSchema, pendingSecretsProbe } from "../../src/health/health-check";

describe("checkHealth", () => {
  it("says ok, with no reasons, when every probe answers", async () => {
    const report = await checkHealth({ cosmos: async () => ({}), storage: async () => ({}) });
    expect(report).toEqual({ status: "ok", checks: { cosmos: "ok", storage: "ok" } });
  });

  it("gives the reason of a pending secret, and never a dependency's own error", async () => {
    const report = await checkHealth({
      cosmos: async () => {
        throw new Error("connect ECONNREFUSED 10.0.0.4:443 with key=abc");
      },
      storage: async () => ({}),
      secrets: pendingSecretsProbe("SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference"),
    });
    expect(report).toEqual({
      status: "unavailable",
      checks: { cosmos: "unavailable", storage: "ok", secrets: "unavailable" },
      reasons: { secrets: "SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference" },
    });
    expect(healthReportSchema.parse(report)).toEqual(report);
  });
});
