import type { Database } from "@azure/cosmos";
import type { QueueServiceClient } from "@azure/storage-queue";
import { z } from "../common/zod";
import { storageDeadline } from "../store/storage-deadline";

export const healthReportSchema = z.object({
  status: z.enum(["ok", "unavailable"]),
  checks: z.record(z.string(), z.enum(["ok", "unavailable"])),
  /**
   * Why a check is unavailable, for the checks whose probe says (a setting the app is still
   * waiting for); a dependency's own error is never shown. Absent when there is nothing to say.
   */
  reasons: z.record(z.string(), z.string()).optional(),
});

export type HealthReport = z.infer<typeof healthReportSchema>;
export type DependencyState = HealthReport["checks"][string];

/** A named probe of one dependency; it must settle within the timeout or counts as unavailable. */
export type Probe = () => Promise<unknown>;

/** A probe's failure whose message /health may show: it names a setting, never a value or a dependency's error. */
export class ProbeUnavailable extends Error {
  override name = "ProbeUnavailable";
}

const PROBE_TIMEOUT_MS = 3000;

interface ProbeResult {
  state: DependencyState;
  reason?: string;
}

function withTimeout(probe: Probe): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ state: "unavailable" }), PROBE_TIMEOUT_MS);
    probe()
      .then(
        () => resolve({ state: "ok" }),
        (error: unknown) =>
          resolve(
            error instanceof ProbeUnavailable
              ? { state: "unavailable", reason: error.message }
              : { state: "unavailable" },
          ),
      )
      .finally(() => clearTimeout(timer));
  });
}

export async function checkHealth(probes: Record<string, Probe>): Promise<HealthReport> {
  const names = Object.keys(probes);
  const results = await Promise.all(names.map((name) => withTimeout(probes[name] as Probe)));
  const checks = Object.fromEntries(
    names.map((name, index) => [name, (results[index] as ProbeResult).state]),
  );
  const reasons = Object.fromEntries(
    names.flatMap((name, index) => {
      const reason = results[index]?.reason;
      return reason === undefined ? [] : [[name, reason]];
    }),
  );
  return {
    status: results.every((result) => result.state === "ok") ? "ok" : "unavailable",
    checks,
    ...(Object.keys(reasons).length > 0 && { reasons }),
  };
}

export function cosmosProbe(database: Database): Probe {
  return () => database.read();
}

/** The call itself is abandoned with the probe, so a storage account that answers nothing holds no call per /health. */
export function storageProbe(queues: QueueServiceClient): Probe {
  return () => queues.getProperties({ abortSignal: storageDeadline(PROBE_TIMEOUT_MS) });
}

/** Fails, saying why, while a secret setting is pending; absent otherwise (services.ts). */
export function pendingSecretsProbe(reason: string): Probe {
  return () => Promise.reject(new ProbeUnavailable(reason));
}
