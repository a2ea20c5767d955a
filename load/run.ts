import * as path from "node:path";
import { Worker } from "node:worker_threads";
import { positiveInteger } from "../bench/env";
import { poisonQueueName } from "../src/common/poison-queue";
import { prepareFixtures } from "./fixtures";
import { HostLog } from "./host-log";
import { LoopbackClient } from "./http-client";
import type { LoadJob, Progress, WorkerMessage } from "./protocol";
import { printSummary, progressLine } from "./report";
import { type LoadStack, startLoadStack } from "./stack";
import { fromData } from "./stats";

/**
 * `npm run load`: the whole local stack under LOAD_CLIENTS concurrent clients for LOAD_SECONDS,
 * across every route and event ingest, then a summary. Exits 1 if any request got a 5xx or
 * failed in transport: the bar is zero. Every request goes to the local host on 127.0.0.1.
 * This thread runs the stack; the clients run on a worker thread (load/worker.ts).
 */
const CLIENTS = positiveInteger("LOAD_CLIENTS", 16);
const SECONDS = positiveInteger("LOAD_SECONDS", 30);
const PROGRESS_SECONDS = positiveInteger("LOAD_PROGRESS_SECONDS", 5);
const DRAIN_SECONDS = positiveInteger("LOAD_DRAIN_SECONDS", 60);
const MAX_REQUESTS = positiveInteger("LOAD_MAX_REQUESTS", 2_000_000);
const MAX_EVENTS_PER_POST = positiveInteger("LOAD_EVENTS_PER_POST", 20);
const SEED = positiveInteger("LOAD_SEED", 1);
const FIXTURES = {
  profiles: positiveInteger("LOAD_PROFILES", 64),
  churnInstances: 4,
  endpointsPerChurnInstance: 8,
  watchedInstances: 2,
  endpointsPerWatchedInstance: 2,
};

async function queueLength(stack: LoadStack, name: string): Promise<number> {
  const queue = stack.services.queueService.getQueueClient(name);
  if (!(await queue.exists())) return 0;
  return (await queue.getProperties()).approximateMessagesCount ?? 0;
}

function describeProgress(progress: Progress): string {
  const n = (value: number) => value.toLocaleString("en-US");
  return `deliveries ${n(progress.delivered)} of ${n(progress.expected)} owed; 5xx ${progress.fiveHundreds}, transport errors ${progress.transportErrors}`;
}

/** Runs the load worker; resolves with its last two reports once it has exited. */
function runWorker(
  job: LoadJob,
  onLoaded: () => Promise<void>,
): Promise<{
  loaded: Extract<WorkerMessage, { type: "loaded" }>;
  drained: Extract<WorkerMessage, { type: "drained" }>;
}> {
  const worker = new Worker(path.join(__dirname, "worker.js"), { workerData: job });
  const started = performance.now();
  let last = { at: started, requests: 0 };
  let loaded: Extract<WorkerMessage, { type: "loaded" }> | undefined;
  let drained: Extract<WorkerMessage, { type: "drained" }> | undefined;
  let loadedHandled: Promise<void> = Promise.resolve();
  return new Promise((resolve, reject) => {
    worker.on("message", (message: WorkerMessage) => {
      if (message.type === "progress") {
        const now = performance.now();
        const recent = (message.requests - last.requests) / ((now - last.at) / 1000);
        last = { at: now, requests: message.requests };
        console.log(
          progressLine((now - started) / 1000, message.requests, recent, describeProgress(message)),
        );
      } else if (message.type === "loaded") {
        loaded = message;
        console.log("");
        console.log(
          `Draining: up to ${DRAIN_SECONDS} s for every accepted event to reach every watched topic...`,
        );
        loadedHandled = onLoaded();
      } else {
        drained = message;
      }
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      loadedHandled.then(() => {
        if (loaded !== undefined && drained !== undefined) resolve({ loaded, drained });
        else reject(new Error(`the load worker exited with ${code} before it finished`));
      }, reject);
    });
  });
}

async function main(): Promise<number> {
  console.log("Starting the local stack (Cosmos server, Azurite, Service Bus stand-in, local host)...");
  const hostLog = new HostLog();
  const stack = await startLoadStack(hostLog.logger);
  const stopOnSignal = () => void stack.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    const setup = new LoopbackClient(stack.baseUrl, 1);
    const fixtures = await prepareFixtures(stack, setup, FIXTURES).finally(() => setup.close());
    console.log(
      `Load: ${CLIENTS} clients for ${SECONDS} s across every route (seed ${SEED}); 1-${MAX_EVENTS_PER_POST} events per POST.`,
    );
    let backlog = 0;
    const { loaded, drained } = await runWorker(
      {
        baseUrl: stack.baseUrl,
        clients: CLIENTS,
        seconds: SECONDS,
        maxRequests: MAX_REQUESTS,
        seed: SEED,
        maxEventsPerPost: MAX_EVENTS_PER_POST,
        progressSeconds: PROGRESS_SECONDS,
        drainSeconds: DRAIN_SECONDS,
        fixtures,
      },
      async () => {
        backlog = await queueLength(stack, stack.services.config.TWIN_EVENTS_QUEUE);
      },
    );
    const poisoned = await queueLength(stack, poisonQueueName(stack.services.config.TWIN_EVENTS_QUEUE));
    const stats = fromData(loaded.stats);
    printSummary({
      clients: CLIENTS,
      seconds: loaded.seconds,
      stats,
      backlog,
      poisoned,
      unwatchedEvents: loaded.unwatchedEvents,
      watchedTopics: FIXTURES.watchedInstances * FIXTURES.endpointsPerWatchedInstance,
      drained,
      hostLog,
    });
    return stats.fiveHundreds + stats.transportErrors === 0 ? 0 : 1;
  } finally {
    await stack.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
