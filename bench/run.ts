import { benchAuth } from "./auth-bench";
import { printAuthComparison } from "./auth-report";
import { benchColdStart } from "./cold-start";
import { printColdStart } from "./cold-start-report";
import { benchCosmosJournal, printCosmosJournal } from "./cosmos-journal-bench";
import { behindRelay, serviceBusPort, spawnDelayRelay } from "./delay-relay-process";
import { benchDelivery } from "./delivery-bench";
import { benchDeploymentPackage, printDeploymentPackage } from "./deployment-package";
import { positiveInteger, positiveIntegers } from "./env";
import { benchFanOut } from "./fanout-bench";
import { HostWarnings } from "./host-warnings";
import { benchHttp } from "./http-bench";
import { printHttpComparison } from "./http-report";
import { type IngestDriver, spawnIngestDriver } from "./ingest-driver";
import { benchLatency } from "./latency-bench";
import { BENCH_FUNCTION_KEY, startBenchStack } from "./local-stack";
import { benchOperationCounts, printOperationCounts } from "./operation-counts";
import { printDelivery, printFanOut, printLatency } from "./report";
import { benchSoak } from "./soak-bench";
import { printSoak } from "./soak-report";

/**
 * `npm run bench`: each figure of the project's performance goals next to its baseline, as ranges
 * over several rounds (a round that fails is reported). A benchmark, not a test: it reports, and
 * fails only if it cannot run. Sizes come from the environment (see docs/performance.md);
 * BENCH_ONLY=cosmos,package,counts,http,auth,delivery,fanout,latency,soak,coldstart runs some parts.
 */
const ROUNDS = positiveInteger("BENCH_ROUNDS", 3);
const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 4);
/** The shape of the ingest traffic (issue 21): requests of 100 events, 4 in flight. */
const INGEST_SHAPE = {
  perRequest: positiveInteger("BENCH_REQUEST_EVENTS", 100),
  inFlight: positiveInteger("BENCH_IN_FLIGHT", 4),
};
const DELIVERY = {
  events: positiveInteger("BENCH_EVENTS", 5000),
  perEventEvents: positiveInteger("BENCH_PER_EVENT_EVENTS", 300),
  shape: INGEST_SHAPE,
  rounds: ROUNDS,
};
const FANOUT = {
  levels: positiveIntegers("BENCH_FANOUT", [1, 6]),
  events: positiveInteger("BENCH_FANOUT_EVENTS", 5000),
  shape: INGEST_SHAPE,
  rounds: ROUNDS,
};
const LATENCY = {
  eventsPerSecond: positiveInteger("BENCH_LATENCY_RATE", 200),
  seconds: positiveInteger("BENCH_LATENCY_SECONDS", 10),
  rounds: ROUNDS,
};
const SOAK = {
  events: positiveInteger("BENCH_SOAK_EVENTS", 250000),
  batch: positiveInteger("BENCH_SOAK_BATCH", 20),
  eventsPerSecond: positiveInteger("BENCH_SOAK_RATE", 2000),
  window: positiveInteger("BENCH_SOAK_WINDOW", 10000),
  timeoutSeconds: positiveInteger("BENCH_SOAK_TIMEOUT_SECONDS", 30),
  ...(process.env.BENCH_SOAK_TIMELINE && { timelineFile: process.env.BENCH_SOAK_TIMELINE }),
};
const HTTP = {
  requests: positiveInteger("BENCH_HTTP_REQUESTS", 4000),
  creates: positiveInteger("BENCH_HTTP_CREATES", 300),
  concurrencies: positiveIntegers("BENCH_HTTP_CONCURRENCY", [8, 16]),
  rounds: positiveInteger("BENCH_HTTP_ROUNDS", 5),
  ...(process.env.BENCH_HTTP_CPU_PROFILE && { cpuProfileDir: process.env.BENCH_HTTP_CPU_PROFILE }),
};
const AUTH = {
  requests: positiveInteger("BENCH_AUTH_REQUESTS", 2000),
  concurrency: positiveInteger("BENCH_AUTH_CONCURRENCY", 8),
  rounds: positiveInteger("BENCH_AUTH_ROUNDS", 5),
};
const COLDSTART_ROUNDS = positiveInteger("BENCH_COLDSTART_ROUNDS", 5);
const COSMOS = {
  writes: positiveInteger("BENCH_COSMOS_WRITES", 2000),
  concurrencies: positiveIntegers("BENCH_COSMOS_CONCURRENCY", [1, 16]),
  rounds: ROUNDS,
};
const PARTS = [
  "cosmos",
  "package",
  "counts",
  "http",
  "auth",
  "delivery",
  "fanout",
  "latency",
  "soak",
  "coldstart",
];
const ONLY = new Set((process.env.BENCH_ONLY ?? PARTS.join(",")).split(",").map((part) => part.trim()));

/** Before the stack starts: two Cosmos servers of its own, and nothing else running beside them. */
async function benchCosmos(): Promise<void> {
  console.log("");
  console.log(
    `Cosmos stand-in: ${COSMOS.writes} creates per store per round through @azure/cosmos, ${COSMOS.concurrencies.join(" and ")} in flight, with its journal (each write on disk before its answer) vs in memory; ${COSMOS.rounds} rounds.`,
  );
  printCosmosJournal(await benchCosmosJournal(COSMOS), COSMOS.concurrencies);
}

/** Before the stack starts too: the staged package, with a Cosmos server and Azurite of its own. */
async function benchPackage(): Promise<void> {
  console.log("");
  console.log(
    `Deployment package: infra/scripts/stage-package.js's, loaded as the Functions worker loads it (dev/functions-worker.ts), beside the unbundled build; ${COLDSTART_ROUNDS} rounds.`,
  );
  printDeploymentPackage(await benchDeploymentPackage(COLDSTART_ROUNDS));
}

async function main(): Promise<void> {
  if (!(RTT_MS >= 0)) throw new Error("BENCH_RTT_MS must be a number of milliseconds, 0 or more");
  if (ONLY.has("cosmos")) await benchCosmos();
  if (ONLY.has("package")) await benchPackage();
  if (ONLY.has("counts")) {
    console.log("");
    console.log(
      "Work per operation: round trips to Cosmos DB and Storage as the deployment package sends them, Service Bus messages and Function executions (bench/operation-counts.ts).",
    );
    printOperationCounts(await benchOperationCounts());
  }
  const BEFORE_STACK = new Set(["cosmos", "package", "counts"]);
  if (!PARTS.some((part) => !BEFORE_STACK.has(part) && ONLY.has(part))) return;
  console.log(`Starting the local stack (Cosmos server, Azurite, Service Bus stand-in, local host)...`);
  const warnings = new HostWarnings();
  const direct = await startBenchStack({}, { log: warnings.logger });
  const report = (part: string) => {
    for (const line of warnings.drain(part)) console.log(line);
  };
  const relay = await spawnDelayRelay(serviceBusPort(direct.serviceBus.connectionString()), RTT_MS);
  const stack = behindRelay(direct, relay);
  const stop = () => void Promise.all([direct.stop(), relay.close()]).finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  let driver: IngestDriver | undefined;
  const ingestDriver = async () => {
    driver ??= await spawnIngestDriver(stack.baseUrl, BENCH_FUNCTION_KEY);
    return driver;
  };
  console.log(
    `Every Service Bus client (the host's, the baselines', the subscribers') goes through a delay relay: ${RTT_MS} ms round trip.`,
  );
  try {
    if (ONLY.has("http")) {
      console.log("");
      console.log(
        `HTTP: the service vs a bare node:http server doing the same Cosmos calls (GET = 1 point read, PUT replace = read + replace), each a child process, driven by one long-lived driver process; ${HTTP.requests} requests per server per round, ${HTTP.rounds} rounds, ${HTTP.concurrencies.join(" and ")} in flight.`,
      );
      printHttpComparison(await benchHttp(stack, HTTP));
      report("http");
    }
    if (ONLY.has("auth")) {
      console.log("");
      console.log(
        `Auth: GET of a profile under AUTH_MODE=entra (bearer token from the local issuer, Reader by a role assignment) vs under keys, two hosts on the same stack; ${AUTH.requests} requests per host per round, ${AUTH.rounds} rounds, ${AUTH.concurrency} in flight.`,
      );
      printAuthComparison(await benchAuth(stack, AUTH));
      report("auth");
    }
    if (ONLY.has("delivery")) {
      console.log("");
      console.log(
        `Delivery: ${DELIVERY.events} events end to end (requests of ${INGEST_SHAPE.perRequest}, ${INGEST_SHAPE.inFlight} in flight) and by the raw SDK batched; ${DELIVERY.perEventEvents} sent one by one; ${ROUNDS} rounds.`,
      );
      printDelivery(await benchDelivery({ stack, driver: await ingestDriver() }, DELIVERY));
      report("delivery");
    }
    if (ONLY.has("fanout")) {
      console.log("");
      console.log(
        `Fan-out: ${FANOUT.events} events (requests of ${INGEST_SHAPE.perRequest}, ${INGEST_SHAPE.inFlight} in flight) to an instance with ${FANOUT.levels.join(", ")} endpoints, and the raw SDK's batched sends of as many events to as many topics (a topic and subscriber each); ${ROUNDS} rounds.`,
      );
      printFanOut(await benchFanOut({ stack, driver: await ingestDriver() }, FANOUT));
      report("fan-out");
    }
    if (ONLY.has("latency")) {
      console.log("");
      console.log(
        `Latency: ${LATENCY.eventsPerSecond} events/s for ${LATENCY.seconds} s after a 3 s warm-up, one event per ingest request, ingest request -> broker acknowledgement; ${ROUNDS} rounds.`,
      );
      printLatency(await benchLatency(stack, LATENCY));
      report("latency");
    }
    if (ONLY.has("soak")) {
      console.log("");
      console.log(
        `Soak: ${SOAK.events.toLocaleString("en-US")} events through the same stack, ${SOAK.batch} per ingest request at ${SOAK.eventsPerSecond.toLocaleString("en-US")} events/s (open loop, one instance, one endpoint); ingest answer times per ${SOAK.window.toLocaleString("en-US")} events, a request unanswered after ${SOAK.timeoutSeconds} s counted as such.`,
      );
      printSoak(await benchSoak(stack, SOAK), SOAK.window);
      report("soak");
    }
    if (ONLY.has("coldstart")) {
      console.log("");
      console.log(
        `Cold start: require of dist/functions/*.js in a fresh node, and the local host's first answer from spawn; ${COLDSTART_ROUNDS} rounds.`,
      );
      printColdStart(await benchColdStart(COLDSTART_ROUNDS));
    }
    console.log("");
    console.log(`Service Bus connections through the relay: ${await relay.connections()}.`);
  } finally {
    await driver?.close();
    await relay.close();
    await direct.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
