import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { projectRoot } from "../dev/local-paths";
import { benchCost, printCost } from "./cost";
import { behindRelay, serviceBusPort, spawnDelayRelay } from "./delay-relay-process";
import { benchDelivery } from "./delivery";
import { deliveryCharts, printDelivery } from "./delivery-report";
import { benchRoutes, printRoutes, ROUTED_ENDPOINTS } from "./delivery-routes";
import { benchDeploymentPackage, printDeploymentPackage } from "./deployment-package";
import { positiveInteger, positiveIntegers } from "./env";
import { benchHandlers, printHandlers } from "./handler-bench";
import { type BenchStack, startBenchStack } from "./local-stack";
import { benchOperationCounts, printOperationCounts } from "./operation-counts";
import { benchScaleCurves, printScaleCurves, scaleCharts, scaleSizes } from "./scale-curves";
import { type ChartSpec, lineChart } from "./svg-chart";

/**
 * `npm run bench` (`npm run bench:node22` on the Node.js infra/ deploys): the service's own work,
 * each figure beside the least program doing the same job, as ranges over rounds with the rounds
 * that held each goal. A benchmark, not a test: it reports, and fails only if it cannot run.
 * BENCH_ONLY=package,counts,handler,delivery,routes,scale,cost picks parts; sizes: docs/performance.md.
 */
const ROUNDS = positiveInteger("BENCH_ROUNDS", 3);
const RTT_MS = Number(process.env.BENCH_RTT_MS ?? 4);
const PARTS = ["package", "counts", "handler", "delivery", "routes", "scale", "cost"];
const ONLY = new Set((process.env.BENCH_ONLY ?? PARTS.join(",")).split(",").map((part) => part.trim()));
const CHARTS = path.resolve(projectRoot(), process.env.BENCH_CHARTS ?? "docs/charts");
const DELIVERY = {
  events: positiveInteger("BENCH_EVENTS", 20_000),
  perEventEvents: positiveInteger("BENCH_PER_EVENT_EVENTS", 300),
  requestEvents: positiveInteger("BENCH_REQUEST_EVENTS", 100),
  rounds: ROUNDS,
  // 46 KB, not 64: ingest refuses an event over 47,104 bytes (a queue message holds 64 KiB in base64).
  sizesKb: positiveIntegers("BENCH_EVENT_KB", [1, 16, 46]),
  endpoints: positiveIntegers("BENCH_ENDPOINTS", [1, 2, 3, 4, 5, 6]),
  budgetMb: positiveInteger("BENCH_DELIVERY_MB", 60),
};

function part(name: string, description: string): boolean {
  if (!ONLY.has(name)) return false;
  console.log("");
  console.log(`${name}: ${description}`);
  return true;
}

/** Each chart as an SVG file named after its title, under BENCH_CHARTS. */
function writeCharts(charts: ChartSpec[]): void {
  mkdirSync(CHARTS, { recursive: true });
  for (const chart of charts) {
    const name = chart.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "");
    writeFileSync(path.join(CHARTS, `${name}.svg`), lineChart(chart));
    console.log(`  chart: ${path.relative(projectRoot(), path.join(CHARTS, `${name}.svg`))}`);
  }
}

/** A bench stack whose Service Bus clients go through the delay relay, for `use`; stopped after it. */
async function behindDelayRelay(use: (stack: BenchStack) => Promise<void>): Promise<void> {
  const direct = await startBenchStack();
  const relay = await spawnDelayRelay(serviceBusPort(direct.serviceBus.connectionString()), RTT_MS);
  const stop = () => void Promise.all([direct.stop(), relay.close()]).finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await use(behindRelay(direct, relay));
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await relay.close();
    await direct.stop();
  }
}

async function main(): Promise<void> {
  if (!(RTT_MS >= 0)) throw new Error("BENCH_RTT_MS must be a number of milliseconds, 0 or more");
  console.log(`Node.js ${process.version}, ${ROUNDS} rounds where a part has rounds.`);
  const packageRounds = positiveInteger("BENCH_PACKAGE_ROUNDS", 5);
  if (part("package", `the deployment package as the Functions worker loads it; ${packageRounds} rounds.`))
    printDeploymentPackage(await benchDeploymentPackage(packageRounds));
  if (part("counts", "round trips, request units, messages and executions per operation, from the package."))
    printOperationCounts(await benchOperationCounts());
  const requests = positiveInteger("BENCH_HANDLER_REQUESTS", 2000);
  if (
    part(
      "handler",
      `CPU per request of the registered handler vs a minimal one; ${requests} requests a round.`,
    )
  )
    printHandlers(await benchHandlers(ROUNDS, requests));
  if (
    part(
      "delivery",
      `the queue function vs a bare forwarder, from a filled queue to the topics' subscribers, every Service Bus client through a ${RTT_MS} ms round-trip relay.`,
    )
  )
    await behindDelayRelay(async (stack) => {
      const results = await benchDelivery(stack, DELIVERY);
      printDelivery(results);
      writeCharts(deliveryCharts(results));
    });
  if (
    part(
      "routes",
      `the queue function to ${ROUTED_ENDPOINTS} endpoints, each behind an event route's $body filter, vs the same without routes; ${DELIVERY.events} events a run, through the same relay.`,
    )
  )
    await behindDelayRelay(async (stack) => printRoutes(await benchRoutes(stack, DELIVERY)));
  if (
    part("scale", "what the endpoint cache does as instances with traffic grow; a list as stored items grow.")
  ) {
    const curves = await benchScaleCurves(scaleSizes());
    printScaleCurves(curves);
    writeCharts(scaleCharts(curves));
  }
  const costSeconds = positiveInteger("BENCH_COST_SECONDS", 10);
  if (
    part(
      "cost",
      `what one instance bills per delivered event and API call, ${costSeconds} s a case, the package as the worker runs it, Service Bus through a ${RTT_MS} ms round-trip relay; priced (docs/costs.md).`,
    )
  )
    printCost(await benchCost(ROUNDS, RTT_MS, costSeconds));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
