import { parentPort, workerData } from "node:worker_threads";
import { LoopbackClient } from "./http-client";
import { makeEvents } from "./twin-events";

/** The steady multi-event ingest traffic of soak-bench.ts. */
export interface SoakJob {
  baseUrl: string;
  path: string;
  headers: Record<string, string>;
  /** Events in all; the last request may carry fewer than `batch`. */
  events: number;
  /** Events per ingest request. */
  batch: number;
  eventsPerSecond: number;
  /** Event ids are `${prefix}-${n}`, n from 0: the n-th event sent. */
  prefix: string;
  /** A request without an answer by then counts as unanswered. */
  timeoutMs: number;
}

export interface SoakResult {
  /** When each request was sent (ms since the epoch), in the order sent. */
  sentAt: number[];
  /** Milliseconds until each request's whole answer; NaN when it got none (or a transport error). */
  answerMs: number[];
  /** Requests that did not get a 202, by what they got. */
  failures: Record<string, number>;
  /** Share of the run this thread was busy: near 1 would make the load generator the limit. */
  busy: number;
}

/**
 * One ingest POST through the bench's loopback client, whose agent closes an idle connection
 * before the host would (bench/http-client.ts): its answer time, or the status it got instead.
 */
async function post(client: LoopbackClient, job: SoakJob, body: string): Promise<number> {
  const { status, ms } = await client.request("POST", job.path, { headers: job.headers, body });
  if (status !== 202) throw new Error(String(status));
  return ms;
}

/**
 * On a worker thread, so the load generator costs the host's thread nothing. Open loop: a request
 * goes out on schedule whether or not earlier ones have been answered, as devices send; a request
 * that hangs therefore shows as a hang, not as a slower sender.
 */
async function run(job: SoakJob): Promise<SoakResult> {
  const requests = Math.ceil(job.events / job.batch);
  // Enough sockets for every request of the timeout to be in flight at once: the client is never the limit.
  const sockets = Math.ceil((job.eventsPerSecond / job.batch) * (job.timeoutMs / 1000)) + 16;
  const client = new LoopbackClient(job.baseUrl, sockets, job.timeoutMs);
  const sentAt: number[] = [];
  const answerMs: number[] = new Array(requests).fill(Number.NaN);
  const failures: Record<string, number> = {};
  const fail = (what: string) => {
    failures[what] = (failures[what] ?? 0) + 1;
  };
  const intervalMs = (1000 * job.batch) / job.eventsPerSecond;
  const start = performance.now();
  const idleBefore = performance.eventLoopUtilization();
  const inFlight: Promise<void>[] = [];
  try {
    for (let index = 0; index < requests; index++) {
      const first = index * job.batch;
      const events = makeEvents(Math.min(job.batch, job.events - first), job.prefix, first);
      const body = JSON.stringify(events);
      const wait = start + index * intervalMs - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      sentAt.push(Date.now());
      inFlight.push(
        post(client, job, body).then(
          (ms) => {
            answerMs[index] = ms;
          },
          (error: Error) => fail(/^\d+$/.test(error.message) ? error.message : `error: ${error.message}`),
        ),
      );
    }
    await Promise.all(inFlight);
    return { sentAt, answerMs, failures, busy: performance.eventLoopUtilization(idleBefore).utilization };
  } finally {
    client.close();
  }
}

const port = parentPort;
if (port === null) throw new Error("bench/soak-worker.js runs as a worker thread");
run(workerData as SoakJob).then(
  (result) => port.postMessage(result),
  (error: unknown) =>
    setImmediate(() => {
      throw error;
    }),
);
