import { benchDelivery } from "./delivery-bench";
import { positiveInteger, positiveIntegers } from "./env";
import { benchFanOut } from "./fanout-bench";
import { benchHttp } from "./http-bench";
import { startBenchStack } from "./local-stack";
import { printDelivery, printFanOut, printHttp } from "./report";

/**
 * `npm run bench`: throughput figures on this machine, printed with the ratios the project's goals
 * are stated in. A benchmark, not a test: it reports, and fails only if it cannot run.
 * Sizes come from the environment (see docs/performance.md); BENCH_ONLY=http,delivery,fanout
 * runs a part.
 */
const EVENTS = positiveInteger("BENCH_EVENTS", 20000);
const BASELINE_EVENTS = positiveInteger("BENCH_BASELINE_EVENTS", 300);
const HTTP = {
  requests: positiveInteger("BENCH_HTTP_REQUESTS", 2000),
  creates: positiveInteger("BENCH_HTTP_CREATES", 300),
  concurrency: positiveInteger("BENCH_HTTP_CONCURRENCY", 16),
  rounds: positiveInteger("BENCH_HTTP_ROUNDS", 2),
};
const FANOUT = positiveIntegers("BENCH_FANOUT", [1, 2, 4, 6]);
const FANOUT_EVENTS = positiveInteger("BENCH_FANOUT_EVENTS", 10000);
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? "http,delivery,fanout").split(",").map((part) => part.trim()),
);

async function main(): Promise<void> {
  console.log(`Starting the local stack (Cosmos server, Azurite, Service Bus stand-in, local host)...`);
  const stack = await startBenchStack();
  const stop = () => void stack.stop().finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    if (ONLY.has("http")) {
      console.log("");
      console.log(
        `HTTP vs raw Cosmos SDK (AuthenticationProfile documents, same Cosmos server): ${HTTP.requests} GETs and PUT-replaces (best of ${HTTP.rounds}), ${HTTP.creates} creates.`,
      );
      printHttp(await benchHttp(stack, HTTP));
    }
    if (ONLY.has("delivery")) {
      console.log("");
      console.log(
        `Delivery: ${EVENTS} events end to end; per-event baseline over ${BASELINE_EVENTS} events.`,
      );
      printDelivery(await benchDelivery(stack, EVENTS, BASELINE_EVENTS));
    }
    if (ONLY.has("fanout")) {
      console.log("");
      console.log(
        `Fan-out: ${FANOUT_EVENTS} events to an instance with ${FANOUT.join(", ")} endpoints (a topic and subscriber each), ingest until every subscriber has every event.`,
      );
      printFanOut(await benchFanOut(stack, FANOUT, FANOUT_EVENTS));
    }
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
