import { randomUUID } from "node:crypto";
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import type { ArrivalsJob, ArrivalsMessage, Enqueued } from "./arrivals-worker";
import { positiveInteger } from "./env";
import { threadCpuMs } from "./process-cpu";

export interface Arrivals {
  /**
   * Resolves once `expected` messages have arrived, with when the subscriber's thread had them (on
   * this thread's performance.now() scale; not when this thread, perhaps busy, heard of it);
   * rejects past the deadline.
   */
  until(expected: number, timeoutMs?: number): Promise<number>;
  received(): number;
  /** performance.now() when the first message arrived (undefined before). */
  firstArrivalAt(): number | undefined;
  /** Each message's id and broker enqueued time, when asked for with `timestamps`. */
  enqueued(): Enqueued[];
  /** The subscriber thread's CPU time so far, in ms (from /proc; NaN where it cannot be read). */
  cpuMs(): number;
  close(): Promise<void>;
}

/** How long a benchmark waits for deliveries before it gives up (the loop must end). */
const DEFAULT_TIMEOUT_MS = positiveInteger("BENCH_TIMEOUT_SECONDS", 120) * 1000;

/**
 * Counts what arrives on a new subscription of `topic` (on the stand-in behind `connectionString`),
 * received on a worker thread (arrivals-worker.ts). The subscription exists once this resolves,
 * so nothing sent afterwards is missed.
 */
export async function countArrivals(
  connectionString: string,
  topic: string,
  options: { timestamps?: boolean } = {},
): Promise<Arrivals> {
  const job: ArrivalsJob = {
    connectionString,
    topic,
    subscription: `bench-${randomUUID().slice(0, 6)}`,
    ...(options.timestamps && { timestamps: true }),
  };
  const enqueued: Enqueued[] = [];
  const worker = new Worker(path.join(__dirname, "arrivals-worker.js"), { workerData: job });
  let received = 0;
  /** The counts so far and when the subscriber had each, on this thread's performance.now() scale. */
  const counts: [received: number, at: number][] = [];
  let firstAt: number | undefined;
  let tid: number | undefined;
  let failure: unknown;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.on("error", (error) => {
    // Reported by until(): a subscriber that stopped would otherwise look like a slow delivery.
    failure = error;
  });
  await new Promise<void>((resolve, reject) => {
    worker.on("message", (message: ArrivalsMessage) => {
      if (message.type === "ready") {
        tid = message.tid;
        resolve();
      } else {
        received = message.received;
        const at = message.at - performance.timeOrigin;
        counts.push([received, at]);
        firstAt ??= at;
        if (message.enqueued) enqueued.push(...message.enqueued);
      }
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the subscriber of ${topic} exited with ${code}`)));
  });
  return {
    async until(expected, timeoutMs = DEFAULT_TIMEOUT_MS) {
      const deadline = performance.now() + timeoutMs;
      while (received < expected) {
        if (failure !== undefined) throw failure;
        if (performance.now() > deadline) {
          throw new Error(`${topic}: ${received} of ${expected} messages after ${timeoutMs / 1000} s`);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return counts.find(([count]) => count >= expected)?.[1] ?? performance.now();
    },
    received: () => received,
    firstArrivalAt: () => firstAt,
    enqueued: () => enqueued,
    cpuMs: () => (tid === undefined ? Number.NaN : threadCpuMs(tid)),
    async close() {
      worker.postMessage("stop");
      await exited;
    },
  };
}
