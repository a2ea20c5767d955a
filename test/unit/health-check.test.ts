import {
  checkHealth,
  healthReportSchema,
  pendingSecretsProbe,
  storageProbe,
} from "../../src/health/health-check";

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

  it("abandons a storage probe that gets no answer with the report, not after it", async () => {
    const signals: AbortSignal[] = [];
    // A queue service that never answers, as one whose process hangs: only the signal ends the call.
    const hanging = {
      getProperties: (options: { abortSignal: AbortSignal }) =>
        new Promise((_resolve, reject) => {
          signals.push(options.abortSignal);
          options.abortSignal.addEventListener("abort", () => reject(options.abortSignal.reason));
        }),
    };
    const started = performance.now();
    const report = await checkHealth({ storage: storageProbe(hanging as never) });
    expect(report.checks).toEqual({ storage: "unavailable" });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(signals).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signals[0]?.aborted).toBe(true);
  });
});
