import type { LoadFixtures } from "./fixtures";
import type { LoadStatsData } from "./stats";

/** What the main thread hands the load worker thread. */
export interface LoadJob {
  baseUrl: string;
  clients: number;
  seconds: number;
  maxRequests: number;
  seed: number;
  maxEventsPerPost: number;
  progressSeconds: number;
  drainSeconds: number;
  fixtures: LoadFixtures;
}

export interface Progress {
  requests: number;
  fiveHundreds: number;
  transportErrors: number;
  delivered: number;
  expected: number;
}

/** What the worker reports, in this order: progress lines, the load's end, the drain's end. */
export type WorkerMessage =
  | ({ type: "progress" } & Progress)
  | { type: "loaded"; seconds: number; stats: LoadStatsData; unwatchedEvents: number }
  | {
      type: "drained";
      complete: boolean;
      seconds: number;
      delivered: number;
      expected: number;
      duplicates: number;
    };
