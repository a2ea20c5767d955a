import { randomUUID } from "node:crypto";
import * as path from "node:path";
import { startServiceBusStandIn } from "../dev/stand-ins/service-bus";
import { loadConfig, QUOTA_BOUNDS } from "../src/config";
import { runChild, startBackingServices } from "./backing-services";
import { positiveInteger, positiveIntegers } from "./env";
import { formatRange, spread } from "./rounds";
import type { ChartSeries, ChartSpec } from "./svg-chart";

/**
 * How cost grows (issue 31, item 4). (a) Events spread evenly over 1, 100 and 1,000 instances (one
 * endpoint each, one shared topic; each point its own instances), delivered by the queue function:
 * Cosmos DB round trips per 1,000 events, which the endpoint cache (src/delivery/endpoint-cache.ts)
 * makes one read per instance per ENDPOINT_CACHE_SECONDS. 10,000 instances is not a default: the
 * Cosmos DB stand-in scans its whole container for every query, so setting them up and the cold
 * round take over an hour here, against milliseconds in Azure. (b) What a list costs as items grow.
 * The app runs in a process of its own (scale-curves-main.ts), which counts the app's Cosmos DB round
 * trips and times its CPU: the service's process only. Sizes: BENCH_INSTANCES (1,100,1000),
 * BENCH_SCALE_EVENTS (10,000 a round), BENCH_SCALE_ROUNDS (3), BENCH_LIST_ITEMS (100,1000),
 * BENCH_LIST_ROUNDS (3); BENCH_SCALE_CACHE_SECONDS sets the app's ENDPOINT_CACHE_SECONDS.
 */
export type ScaleSizes = {
  instances: number[];
  events: number;
  rounds: number;
  listItems: number[];
  listRounds: number;
};
/** One call or round in the app's process: Cosmos DB round trips, wall and CPU milliseconds. */
export type Cost = { cosmos: number; ms: number; cpuMs: number };
/**
 * `setup`: the PUTs of the point's endpoints. Round 1 fills the cache (a read per instance), the later rounds find it fresh; `listOne`: GETs of
 * one instance's endpoints (1 item) while the container holds `stored` endpoints.
 */
export type InstancePoint = {
  instances: number;
  setup: Cost;
  cold: Cost;
  warm: Cost[];
  stored: number;
  listOne: Cost[];
};
/** Each list of `items` profiles, page by page (following nextLink). */
export type ListPoint = { items: number; lists: (Cost & { items: number })[][] };
/** `delivered`: the Service Bus messages the topic accepted, of `expected`. */
export type ScaleCurves = {
  sizes: ScaleSizes;
  cacheSeconds: number;
  instances: InstancePoint[];
  lists: ListPoint[];
  delivered: number;
  expected: number;
};

/** host.json's queues.batchSize + newBatchThreshold: the messages one host runs at once. */
export const HOST_CONCURRENCY = 12;
export type ScalePlan = { sizes: ScaleSizes; connection: string; cosmosHost: string };

export function scaleSizes(): ScaleSizes {
  return {
    instances: positiveIntegers("BENCH_INSTANCES", [1, 100, 1000]),
    events: positiveInteger("BENCH_SCALE_EVENTS", 10_000),
    rounds: Math.max(2, positiveInteger("BENCH_SCALE_ROUNDS", 3)),
    listItems: positiveIntegers("BENCH_LIST_ITEMS", [100, 1000]),
    listRounds: positiveInteger("BENCH_LIST_ROUNDS", 3),
  };
}

export async function benchScaleCurves(sizes: ScaleSizes = scaleSizes()): Promise<ScaleCurves> {
  const backing = await startBackingServices();
  const serviceBus = await startServiceBusStandIn({ port: 0 });
  try {
    const topic = `scale-${randomUUID().slice(0, 8)}`;
    serviceBus.ensureSubscription(topic, "all");
    const { APPLICATIONINSIGHTS_CONNECTION_STRING: _off, ...inherited } = process.env;
    const env = { ...inherited, ...backing.settings, ALLOW_LOOPBACK_ENDPOINTS: "true" };
    const maxItems = Math.min(Math.max(...sizes.listItems), QUOTA_BOUNDS.AUTH_PROFILE_MAX_COUNT);
    Object.assign(env, { AUTH_PROFILE_MAX_COUNT: String(maxItems) });
    const cacheSeconds = process.env.BENCH_SCALE_CACHE_SECONDS;
    if (cacheSeconds !== undefined) Object.assign(env, { ENDPOINT_CACHE_SECONDS: cacheSeconds });
    const cosmosHost = new URL(loadConfig(env).COSMOS_ENDPOINT).host;
    const plan: ScalePlan = { sizes, connection: serviceBus.connectionString(topic), cosmosHost };
    const out = await runChild([path.join(__dirname, "scale-curves-main.js"), JSON.stringify(plan)], env);
    const result = JSON.parse(out.trim().split("\n").pop() ?? "") as ScaleCurves;
    const expected = sizes.instances.length * sizes.rounds * sizes.events;
    return { ...result, delivered: serviceBus.topicStats(topic).accepted, expected };
  } finally {
    await serviceBus.close();
    await backing.stop();
  }
}

const perK = (c: Cost, events: number) => (c.cosmos / events) * 1000;
const perS = (c: Cost, events: number) => events / (c.ms / 1000);
const num = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: n < 10 ? 2 : 0 });
const range = <T>(items: T[], figure: (item: T) => number) => formatRange(items.map(figure), num);
const table = (rows: string[][]) => {
  for (const cells of rows) console.log(`  ${cells.map((cell) => cell.padEnd(22)).join(" ")}`);
};

export function printScaleCurves(c: ScaleCurves): void {
  const { events, rounds } = c.sizes;
  console.log(`\n  (a) ${num(events)} events a round, 1 a message, ${HOST_CONCURRENCY} messages at once`);
  const head = ["instances with traffic", "Cosmos RT/1,000 ev cold", `warm (rounds 2–${rounds})`];
  table([
    [...head, "events/s: cold", "warm", "instance back every s", "setup: PUTs, s"],
    ...c.instances.map((p) => {
      const warm = (f: (w: Cost, e: number) => number) => range(p.warm, (w) => f(w, events));
      const [rt, s] = [num(perK(p.cold, events)), num(perS(p.cold, events))];
      const back = range(p.warm, (w) => (w.ms / 1000) * (Math.min(p.instances, events) / events));
      return [num(p.instances), rt, warm(perK), s, warm(perS), back, num(p.setup.ms / 1000)];
    }),
  ]);
  console.log(
    `  An instance's endpoints are read at most once per ENDPOINT_CACHE_SECONDS (${c.cacheSeconds} s), a query of 2 round trips\n` +
      "  (plan, query): cold costs 2,000 × min(instances, events) ÷ events per 1,000 events; warm ~0 while each instance\n" +
      "  comes back within the window. A quieter instance pays the cold read on every message (as BENCH_SCALE_CACHE_SECONDS=0\n" +
      "  shows, and as warm does once instances come back later than the window: slow reads lengthen the round, so\n" +
      "  more miss). Entries past the window are dropped, so the cache holds the instances with recent traffic.\n" +
      `  Service Bus messages accepted: ${num(c.delivered)} of ${num(c.expected)}.`,
  );
  console.log(
    `\n  (b) list one instance's endpoints (1 item) as the container fills; then every profile, all pages`,
  );
  table([
    ["endpoints stored", "Cosmos RT a list", "CPU ms a list", "wall ms a list"],
    ...c.instances.map((p) => [num(p.stored), ...[cosmos, cpu, wall].map((f) => range(p.listOne, f))]),
  ]);
  table([
    ["profiles stored", "pages × items a page", "Cosmos RT a list", "CPU ms a page", "wall ms a page"],
    ...c.lists.map((p) => {
      const [pages, all] = [p.lists[0] ?? [], p.lists.flat()];
      const listRt = range(p.lists, (l) => l.reduce((sum, x) => sum + x.cosmos, 0));
      const shape = `${pages.length} × ${pages[0]?.items ?? 0}`;
      return [num(p.items), shape, listRt, range(all, cpu), range(all, wall)];
    }),
  ]);
  console.log(
    `  No list holds 10,000: profiles ≤ ${QUOTA_BOUNDS.AUTH_PROFILE_MAX_COUNT} (one partition), endpoints ≤ ${QUOTA_BOUNDS.ENDPOINTS_PER_INSTANCE_MAX} an instance; the\n` +
      "  container's growth is (a)'s endpoints. Times are the app's process only: the stand-in's scan is not Azure's.",
  );
}

const [cosmos, cpu, wall] = [(x: Cost) => x.cosmos, (x: Cost) => x.cpuMs, (x: Cost) => x.ms];
const series = (name: string, points: [number, number[]][]): ChartSeries => ({
  name,
  points: points.map(([x, values]) => ({ x, ...(spread(values) ?? { min: 0, max: 0 }) })),
});

export function scaleCharts(c: ScaleCurves): ChartSpec[] {
  const { events } = c.sizes;
  const xLabel = "instances with traffic";
  const pair = (title: string, yLabel: string, f: (w: Cost, e: number) => number): ChartSpec => {
    const at = (costs: (p: InstancePoint) => Cost[]) =>
      c.instances.map((p): [number, number[]] => [p.instances, costs(p).map((w) => f(w, events))]);
    const warm = series(
      `rounds 2+ (cache ${c.cacheSeconds} s)`,
      at((p) => p.warm),
    );
    return {
      title,
      yLabel,
      xLabel,
      xLog: true,
      series: [
        series(
          "cold (round 1)",
          at((p) => [p.cold]),
        ),
        warm,
      ],
    };
  };
  const profiles = (f: (x: Cost) => number) =>
    c.lists.map((p): [number, number[]] => [p.items, p.lists.flat().map(f)]);
  const one = (f: (x: Cost) => number) =>
    c.instances.map((p): [number, number[]] => [p.stored, p.listOne.map(f)]);
  return [
    pair("Cosmos DB round trips per 1,000 delivered events", "round trips", perK),
    pair("Delivery throughput, 1 event a message", "events/s", perS),
    {
      title: "A list page against items stored",
      xLabel: "items stored",
      xLog: true,
      yLabel: "ms a page, app process",
      series: [
        series("all profiles, wall", profiles(wall)),
        series("all profiles, CPU", profiles(cpu)),
        series("one instance's endpoints (container), wall", one(wall)),
        series("one instance's endpoints (container), CPU", one(cpu)),
      ],
    },
  ];
}
