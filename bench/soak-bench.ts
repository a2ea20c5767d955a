import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import { countArrivals } from "./arrivals";
import { BENCH_FUNCTION_KEY, type BenchStack } from "./local-stack";
import { sampleStack } from "./process-sampler";
import { type SoakWindow, soakTimeline, soakWindows } from "./soak-windows";
import type { SoakJob, SoakResult } from "./soak-worker";
import { benchInstance, createTopicEndpoint } from "./twin-events";

export interface SoakSizes {
  events: number;
  /** Events per ingest request. */
  batch: number;
  eventsPerSecond: number;
  /** Events per reported window. */
  window: number;
  /** An ingest request without an answer by then counts as unanswered. */
  timeoutSeconds: number;
  /** Where to write the soak second by second (JSON lines), if anywhere. */
  timelineFile?: string;
}

export interface SoakRun {
  windows: SoakWindow[];
  requests: number;
  /** Requests that did not get a 202, by what they got. */
  failures: Record<string, number>;
  delivered: number;
  seconds: number;
  /** Share of its thread the load generator was busy: near 1 would make it the limit. */
  driverBusy: number;
}

function runSoakWorker(job: SoakJob): Promise<SoakResult> {
  const worker = new Worker(path.join(__dirname, "soak-worker.js"), { workerData: job });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the soak worker exited with ${code}`)));
  });
}

/**
 * Steady multi-event ingest through one instance and one endpoint, long enough to push hundreds of
 * thousands of events through the same stack (after the other parts' events): each request's answer
 * time (the 202 once its events are on the queue) and each event's time to the broker, cut into
 * windows of `window` events, next to what the host's thread and Azurite's queue service did in
 * those seconds. A stall shows as a window whose answers wait, and the timeline says where.
 */
export async function benchSoak(stack: BenchStack, sizes: SoakSizes): Promise<SoakRun> {
  const instance = benchInstance("soak");
  await createTopicEndpoint(stack, instance, "soak", "soak");
  const arrivals = await countArrivals(stack.serviceBus.connectionString(), "soak", { timestamps: true });
  const sampler = sampleStack("queue/main.js");
  try {
    const started = performance.now();
    const result = await runSoakWorker({
      baseUrl: stack.baseUrl,
      path: `${instance}/events`,
      headers: {
        "x-functions-key": BENCH_FUNCTION_KEY,
        "content-type": "application/cloudevents-batch+json",
      },
      events: sizes.events,
      batch: sizes.batch,
      eventsPerSecond: sizes.eventsPerSecond,
      prefix: "soak",
      timeoutMs: sizes.timeoutSeconds * 1000,
    });
    // Whatever was stored is delivered; a request that failed may have stored nothing, so do not wait for it.
    await arrivals.until(sizes.events).catch(() => undefined);
    const seconds = (performance.now() - started) / 1000;
    const enqueuedAt: (number | undefined)[] = new Array(sizes.events);
    for (const [id, at] of arrivals.enqueued()) {
      const index = Number(id.slice("soak-".length));
      enqueuedAt[index] ??= at;
    }
    const timings = { ...sizes, ...result, enqueuedAt, samples: sampler.stop() };
    if (sizes.timelineFile !== undefined) {
      const lines = soakTimeline(timings).map((second) => JSON.stringify(second));
      writeFileSync(sizes.timelineFile, `${lines.join("\n")}\n`);
    }
    return {
      windows: soakWindows(timings),
      requests: result.sentAt.length,
      failures: result.failures,
      delivered: enqueuedAt.filter((at) => at !== undefined).length,
      seconds,
      driverBusy: result.busy,
    };
  } finally {
    sampler.stop();
    await arrivals.close();
  }
}
