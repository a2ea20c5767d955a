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

/** "hh:mm:ss" as host.json writes time spans. */
export function parseTimeSpan(value: string): number {
  const match = /^(\d+):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(value);
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

export function readHostSettings(file = findHostJson()): HostSettings {
  const json = JSON.parse(readFileSync(file, "utf8"));
  const http = json.extensions?.http ?? {};
  const queues = json.extensions?.queues ?? {};
  return {
    routePrefix: typeof http.routePrefix === "string" ? http.routePrefix : "api",
    queues: {
      batchSize: queues.batchSize ?? 16,
      newBatchThreshold: queues.newBatchThreshold ?? 8,
      maxDequeueCount: queues.maxDequeueCount ?? 5,
      visibilityTimeoutSeconds: parseTimeSpan(queues.visibilityTimeout ?? "00:00:00"),
      maxPollingIntervalMs: parseTimeSpan(queues.maxPollingInterval ?? "00:01:00") * 1000,
    },
  };
}
