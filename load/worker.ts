import { parentPort, workerData } from "node:worker_threads";
import { runClients } from "./clients";
import { DeliveryWatch } from "./delivery-watch";
import { LoopbackClient } from "./http-client";
import type { MixContext } from "./mix";
import type { LoadJob, WorkerMessage } from "./protocol";
import { LoadStats, toData } from "./stats";

/**
 * The load generator, on a worker thread of its own: the clients and the subscribers that check
 * deliveries. The main thread then runs nothing but the local host (HTTP and the queue trigger),
 * as a Functions worker process would, and a busy generator cannot slow the service it measures.
 */
async function generate(job: LoadJob, post: (message: WorkerMessage) => void): Promise<void> {
  const http = new LoopbackClient(job.baseUrl, job.clients);
  const watch = await DeliveryWatch.start(job.fixtures.serviceBus, job.fixtures.watched);
  const stats = new LoadStats();
  const progress = () =>
    post({
      type: "progress",
      requests: stats.requests,
      fiveHundreds: stats.fiveHundreds,
      transportErrors: stats.transportErrors,
      delivered: watch.delivered(),
      expected: watch.expected(),
    });
  try {
    let unwatchedEvents = 0;
    const context: MixContext = {
      fixtures: job.fixtures,
      watch,
      maxEventsPerPost: job.maxEventsPerPost,
      unwatchedAccepted: (count) => {
        unwatchedEvents += count;
      },
    };
    const started = performance.now();
    const timer = setInterval(progress, job.progressSeconds * 1000);
    try {
      await runClients({
        clients: job.clients,
        deadline: started + job.seconds * 1000,
        maxRequests: job.maxRequests,
        seed: job.seed,
        http,
        context,
        stats,
      });
    } finally {
      clearInterval(timer);
    }
    post({
      type: "loaded",
      seconds: (performance.now() - started) / 1000,
      stats: toData(stats),
      unwatchedEvents,
    });

    const drainStarted = performance.now();
    let lastTick = drainStarted;
    const complete = await watch.waitUntilComplete(job.drainSeconds * 1000, () => {
      if (performance.now() - lastTick < job.progressSeconds * 1000) return;
      lastTick = performance.now();
      progress();
    });
    post({
      type: "drained",
      complete,
      seconds: (performance.now() - drainStarted) / 1000,
      delivered: watch.delivered(),
      expected: watch.expected(),
      duplicates: watch.duplicates(),
    });
  } finally {
    http.close();
    await watch.close();
  }
}

const port = parentPort;
if (port === null) throw new Error("load/worker.js runs as a worker thread of load/run.js");
generate(workerData as LoadJob, (message) => port.postMessage(message)).catch((error: unknown) => {
  // Rethrown on the next tick so the worker fails with it and the main thread's "error" sees it.
  setImmediate(() => {
    throw error;
  });
});
