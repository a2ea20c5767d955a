import { parentPort, workerData } from "node:worker_threads";
import { LoopbackClient } from "./http-client";

/** The steady ingest traffic of latency-bench.ts: one request per body, one every 1/rate seconds. */
export interface SteadyJob {
  baseUrl: string;
  path: string;
  headers: Record<string, string>;
  /** One JSON event per request, with its id. */
  events: { id: string; body: string }[];
  eventsPerSecond: number;
}

export interface SteadyResult {
  /** Each event's id and when its request was sent (ms since the epoch). */
  sentAt: [id: string, at: number][];
  /** Milliseconds from sending each request to its whole answer, in the order sent. */
  answerMs: number[];
  /** Requests that did not get a 202, by what they got. */
  failures: Record<string, number>;
}

/**
 * On a worker thread, so the load generator costs the host's thread nothing. Open loop: a request
 * goes out on schedule whether or not earlier ones have been answered, as devices send.
 */
async function run(job: SteadyJob): Promise<SteadyResult> {
  const client = new LoopbackClient(job.baseUrl, 256);
  const sentAt: [string, number][] = [];
  const answerMs: number[] = [];
  const failures: Record<string, number> = {};
  const intervalMs = 1000 / job.eventsPerSecond;
  const start = performance.now();
  const requests: Promise<void>[] = [];
  try {
    for (const [index, event] of job.events.entries()) {
      const wait = start + index * intervalMs - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      sentAt.push([event.id, Date.now()]);
      requests.push(
        client.request("POST", job.path, { headers: job.headers, body: event.body }).then(
          ({ status, ms }) => {
            answerMs[index] = ms;
            if (status !== 202) failures[String(status)] = (failures[String(status)] ?? 0) + 1;
          },
          (error: Error) => {
            failures[`error: ${error.message}`] = (failures[`error: ${error.message}`] ?? 0) + 1;
          },
        ),
      );
    }
    await Promise.all(requests);
    return { sentAt, answerMs, failures };
  } finally {
    client.close();
  }
}

const port = parentPort;
if (port === null) throw new Error("bench/latency-worker.js runs as a worker thread");
run(workerData as SteadyJob).then(
  (result) => port.postMessage(result),
  (error: unknown) =>
    setImmediate(() => {
      throw error;
    }),
);
