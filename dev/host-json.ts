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
export function parseTimeSpan(value: string): number {
  const match = /^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(value);
  if (!match) throw new Error(`host.json: '${value}' is not a time span of the form hh:mm:ss`);
  const [, hours, minutes, seconds] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

/**
 * host.json's extensions with the app settings that override them, as the Functions host reads
 * them: `AzureFunctionsJobHost__extensions__queues__batchSize=4` sets extensions.queues.batchSize.
 */
function withOverrides(extensions: Record<string, Record<string, unknown>>, env: NodeJS.ProcessEnv) {
  const prefix = "azurefunctionsjobhost__extensions__";
  const merged = { http: { ...extensions.http }, queues: { ...extensions.queues } };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.toLowerCase().startsWith(prefix)) continue;
    const [section, key] = name.slice(prefix.length).split("__");
    if ((section === "http" || section === "queues") && key)
      merged[section][key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  return merged;
}

/** The project's host.json, found from here whether running from dev/ (tests) or dist/dev/ (built). */
export function findHostJson(start = __dirname): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "host.json");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`host.json not found above ${start}`);
  }
}

export function readHostSettings(file = findHostJson(), env: NodeJS.ProcessEnv = {}): HostSettings {
  const json = JSON.parse(readFileSync(file, "utf8"));
  const { http, queues } = withOverrides(json.extensions ?? {}, env);
  return {
    routePrefix: typeof http.routePrefix === "string" ? http.routePrefix : "api",
    queues: {
      batchSize: Number(queues.batchSize ?? 16),
      newBatchThreshold: Number(queues.newBatchThreshold ?? 8),
      maxDequeueCount: Number(queues.maxDequeueCount ?? 5),
      visibilityTimeoutSeconds: parseTimeSpan(String(queues.visibilityTimeout ?? "00:00:00")),
      maxPollingIntervalMs: parseTimeSpan(String(queues.maxPollingInterval ?? "00:01:00")) * 1000,
    },
  };
}
