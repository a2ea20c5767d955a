import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";

/** The parts of host.json the local host follows, so it behaves as the Functions host would. */
export interface HostSettings {
  routePrefix: string;
  queues: {
    batchSize: number;
    newBatchThreshold: number;
    maxDequeueCount: number;
    visibilityTimeoutSeconds: number;
    maxPollingIntervalMs: number;
  };
}

/** "hh:mm:ss[.fff]" as host.json writes time spans, in seconds. */
function parseTimeSpan(value: unknown): number {
  const match = /^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(String(value));
  if (!match) throw new Error(`host.json: '${value}' is not a time span of the form hh:mm:ss`);
  const [, hours, minutes, seconds] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

/** The project's host.json, found from here whether running from dev/ (tests) or dist/dev/ (built). */
export function findHostJson(start = __dirname): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "host.json");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`host.json not found above ${start}`);
  }
}

/**
 * host.json's extensions with the app settings that override them, as the Functions host reads
 * them: `AzureFunctionsJobHost__extensions__queues__batchSize=4` sets extensions.queues.batchSize.
 */
export function readHostSettings(file = findHostJson(), env: NodeJS.ProcessEnv = {}): HostSettings {
  const { http = {}, queues = {} } = JSON.parse(readFileSync(file, "utf8")).extensions ?? {};
  const merged: Record<"http" | "queues", Record<string, unknown>> = {
    http: { ...http },
    queues: { ...queues },
  };
  const prefix = "azurefunctionsjobhost__extensions__";
  for (const [name, value] of Object.entries(env)) {
    const [section = "", key] = name.toLowerCase().startsWith(prefix)
      ? name.slice(prefix.length).split("__")
      : [];
    if (value !== undefined && key && (section === "http" || section === "queues"))
      merged[section][key] = value;
  }
  const { routePrefix = "api" } = merged.http as { routePrefix?: string };
  const q = merged.queues as Record<string, unknown>;
  return {
    routePrefix,
    queues: {
      batchSize: Number(q.batchSize ?? 16),
      newBatchThreshold: Number(q.newBatchThreshold ?? 8),
      maxDequeueCount: Number(q.maxDequeueCount ?? 5),
      visibilityTimeoutSeconds: parseTimeSpan(q.visibilityTimeout ?? "00:00:00"),
      maxPollingIntervalMs: parseTimeSpan(q.maxPollingInterval ?? "00:01:00") * 1000,
    },
  };
}
