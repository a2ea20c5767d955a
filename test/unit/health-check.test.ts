import {
  checkHealth,
  healthReportSchema,
  pendingSecretsProbe,
  storageProbe,
} from "../../src/health/health-check";
import { STORAGE_CALL_DEADLINE_MS } from "../../src/store/storage-deadline";
import { useFakeClock } from "../support/fake-clock";

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
    // On a fake clock: when the report comes and when the call is abandoned is the code's doing.
    const realClock = useFakeClock();
    try {
      const signals: AbortSignal[] = [];
      let abandonedAt: number | undefined;
      // A queue service that never answers, as one whose process hangs: only the signal ends the call.
      const hanging = {
        getProperties: (options: { abortSignal: AbortSignal }) =>
          new Promise((_resolve, reject) => {
            signals.push(options.abortSignal);
            options.abortSignal.addEventListener("abort", () => {
              abandonedAt = Date.now();
              reject(options.abortSignal.reason);
            });
          }),
      };
      const started = Date.now();
      let reportedAt: number | undefined;
      const report = checkHealth({ storage: storageProbe(hanging as never) }).then((given) => {
        reportedAt = Date.now();
        return given;
      });
      // Past the service's own storage deadline too, so that one would show if it ended the call.
      await jest.advanceTimersByTimeAsync(2 * STORAGE_CALL_DEADLINE_MS);
      expect((await report).checks).toEqual({ storage: "unavailable" });
      expect(signals).toHaveLength(1);
      // The report at the probe's timeout, not at the storage deadline; the call abandoned then.
      expect((reportedAt as number) - started).toBeLessThan(STORAGE_CALL_DEADLINE_MS);
      expect(abandonedAt).toBe(reportedAt);
      expect(signals[0]?.reason).toMatchObject({ name: "TimeoutError" });
    } finally {
      realClock();
    }
  });
});
