import type { Database } from "@azure/cosmos";
import type { QueueServiceClient } from "@azure/storage-queue";
import { z } from "zod";

export const healthReportSchema = z.object({
  status: z.enum(["ok", "unavailable"]),
  checks: z.record(z.string(), z.enum(["ok", "unavailable"])),
});

export type HealthReport = z.infer<typeof healthReportSchema>;
export type DependencyState = HealthReport["checks"][string];

/** A named probe of one dependency; it must settle within the timeout or counts as unavailable. */
export type Probe = () => Promise<unknown>;

const PROBE_TIMEOUT_MS = 3000;

function withTimeout(probe: Probe): Promise<DependencyState> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("unavailable"), PROBE_TIMEOUT_MS);
    probe()
      .then(
        () => resolve("ok"),
        () => resolve("unavailable"),
      )
      .finally(() => clearTimeout(timer));
  });
}

export async function checkHealth(probes: Record<string, Probe>): Promise<HealthReport> {
  const names = Object.keys(probes);
  const states = await Promise.all(names.map((name) => withTimeout(probes[name] as Probe)));
  const checks = Object.fromEntries(names.map((name, index) => [name, states[index] as DependencyState]));
  return { status: states.every((state) => state === "ok") ? "ok" : "unavailable", checks };
}

export function cosmosProbe(database: Database): Probe {
  return () => database.read();
}

export function storageProbe(queues: QueueServiceClient): Probe {
  return () => queues.getProperties();
}
