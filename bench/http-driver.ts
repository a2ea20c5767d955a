import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import type { RunFigure } from "./concurrent";
import type { HttpJob, HttpWorkerMessage } from "./http-worker";

/**
 * Runs one HTTP measurement on a worker thread (http-worker.ts) and adds how busy this thread,
 * the host's, was per request while the worker's requests were in flight.
 */
export function runHttpJob(job: HttpJob): Promise<RunFigure> {
  const worker = new Worker(path.join(__dirname, "http-worker.js"), { workerData: job });
  let before: ReturnType<typeof performance.eventLoopUtilization> | undefined;
  let figure: RunFigure | undefined;
  return new Promise((resolve, reject) => {
    worker.on("message", (message: HttpWorkerMessage) => {
      if (message.type === "started") {
        before = performance.eventLoopUtilization();
      } else {
        const active = before === undefined ? Number.NaN : performance.eventLoopUtilization(before).active;
        figure = { ...message.figure, busyMicrosPerOp: (active * 1000) / message.figure.count };
      }
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (figure !== undefined) resolve(figure);
      else reject(new Error(`the HTTP bench worker exited with ${code} before it finished`));
    });
  });
}
