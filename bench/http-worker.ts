import { parentPort, workerData } from "node:worker_threads";
import { runConcurrent } from "./concurrent";
import { LoopbackClient } from "./http-client";

/** One HTTP measurement for the worker: `count` requests to `${pathPrefix}${index % modulo}`. */
export interface HttpJob {
  baseUrl: string;
  method: "GET" | "PUT";
  pathPrefix: string;
  /** When set, paths cycle through this many names; otherwise every request has its own. */
  modulo?: number;
  count: number;
  concurrency: number;
  headers: Record<string, string>;
  body?: string;
  expected: number;
}

export type HttpWorkerMessage =
  | { type: "started" }
  | { type: "done"; figure: Awaited<ReturnType<typeof runConcurrent>> };

/**
 * The HTTP clients of http-bench.ts, on a worker thread: the main thread then runs only the host,
 * so the figures charge it with serving requests, not with sending them (as with real clients).
 */
async function run(job: HttpJob, post: (message: HttpWorkerMessage) => void): Promise<void> {
  const client = new LoopbackClient(job.baseUrl, job.concurrency);
  try {
    post({ type: "started" });
    const figure = await runConcurrent(job.count, job.concurrency, async (index) => {
      const name = job.modulo === undefined ? index : index % job.modulo;
      const { status } = await client.request(job.method, `${job.pathPrefix}${name}`, {
        headers: job.headers,
        ...(job.body !== undefined && { body: job.body }),
      });
      return status === job.expected ? undefined : String(status);
    });
    post({ type: "done", figure });
  } finally {
    client.close();
  }
}

const port = parentPort;
if (port === null) throw new Error("bench/http-worker.js runs as a worker thread");
run(workerData as HttpJob, (message) => port.postMessage(message)).catch((error: unknown) => {
  setImmediate(() => {
    throw error;
  });
});
