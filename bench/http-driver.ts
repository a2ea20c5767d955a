import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import type { RunFigure } from "./concurrent";
import type { HttpJob, HttpWorkerMessage } from "./http-worker";

/** Called when the worker sends its first request and when its last answer is in. */
export interface JobProbe {
  started(): void;
  finished(): void;
}

/**
 * Runs one HTTP measurement on a worker thread (http-worker.ts) and adds how busy this thread
 * was per request while the worker's requests were in flight; `probe` brackets the same span (the
 * HTTP benchmark reads the server process's CPU time there).
 */
export function runHttpJob(job: HttpJob, probe?: JobProbe): Promise<RunFigure> {
  const worker = new Worker(path.join(__dirname, "http-worker.js"), { workerData: job });
  let before: ReturnType<typeof performance.eventLoopUtilization> | undefined;
  let figure: RunFigure | undefined;
  return new Promise((resolve, reject) => {
    worker.on("message", (message: HttpWorkerMessage) => {
      if (message.type === "started") {
        probe?.started();
        before = performance.eventLoopUtilization();
      } else {
        probe?.finished();
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
