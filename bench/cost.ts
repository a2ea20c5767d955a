import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { findHostJson, readHostSettings } from "../dev/host-json";
import { projectRoot } from "../dev/local-paths";
import { startServiceBusStandIn } from "../dev/stand-ins/service-bus";
import { loadConfig } from "../src/config";
import { runChild, startBackingServices } from "./backing-services";
import type { CostChildReport, CostRun, UnitQuantities } from "./cost-runs";
import { unitQuantities } from "./cost-runs";
import { spawnDelayRelay, throughRelay } from "./delay-relay-process";
import { billedMs, type Execution, gbSeconds } from "./flex-billing";
import { FLEX_FREE_GRANT, PRICES } from "./prices";
import { formatRange, type Rounds, runRounds } from "./rounds";
import { keptShare, type LoggingSettings, loggingSettings } from "./telemetry-model";

/**
 * The cost part (BENCH_ONLY=cost): what one instance of the deployment package bills per
 * delivered event and per API call, measured as the Functions worker runs it
 * (bench/cost-child-main.ts) with every Service Bus client behind the delay relay, and priced
 * with bench/prices.ts. Executions, their wall time (hence Flex GB-s, bench/flex-billing.ts), the
 * Cosmos DB requests (RU, bench/request-units.ts), the Storage requests (the app's and the queue
 * trigger's), the Service Bus messages (counted by the broker) and the telemetry
 * (bench/telemetry-model.ts: what the app logged and what the host adds, through host.json) are
 * measured; Azure Digital Twins' prices stand beside the dollars.
 */

/** Flex Consumption instance memory, as infra/ deploys it (main.bicep instanceMemoryMB). */
export const INSTANCE_MEMORY_MB = 512;
const RATE = 100;
const SECONDS_A_MONTH = 2_628_000;

export interface CostCase {
  label: string;
  kind: CostRun["kind"];
  endpoints: number;
  eventsPerRequest: number;
  eventsPerSecond: number;
}

export const COST_CASES: CostCase[] = [
  { label: "one-by-one-1", kind: "events", endpoints: 1, eventsPerRequest: 1, eventsPerSecond: RATE },
  { label: "batched-1", kind: "events", endpoints: 1, eventsPerRequest: 20, eventsPerSecond: RATE },
  { label: "one-by-one-6", kind: "events", endpoints: 6, eventsPerRequest: 1, eventsPerSecond: RATE },
  { label: "batched-6", kind: "events", endpoints: 6, eventsPerRequest: 20, eventsPerSecond: RATE },
  { label: "api", kind: "api", endpoints: 0, eventsPerRequest: 1, eventsPerSecond: RATE },
  { label: "group-10", kind: "events", endpoints: 1, eventsPerRequest: 1, eventsPerSecond: 10 },
  // 100 million events a month, spread evenly.
  { label: "group-38", kind: "events", endpoints: 1, eventsPerRequest: 1, eventsPerSecond: 38 },
  { label: "group-1000", kind: "events", endpoints: 1, eventsPerRequest: 1, eventsPerSecond: 1000 },
];

export interface CostRound {
  quantities: Record<string, UnitQuantities & { serviceBusMessages: number }>;
  rssAfterLoadMb: number;
  rssMaxMb: number;
}

export interface CostResults {
  rounds: Rounds<CostRound>;
  settings: LoggingSettings;
  maxPollingIntervalMs: number;
}

export async function benchCost(rounds: number, rttMs: number, seconds: number): Promise<CostResults> {
  const { stagePackage } = require(path.join(projectRoot(), "infra", "scripts", "stage-package.js")) as {
    stagePackage(options: { stage: string; quiet: boolean }): Promise<unknown>;
  };
  const stage = path.join(mkdtempSync(path.join(tmpdir(), "bench-cost-")), "package");
  const backing = await startBackingServices();
  const serviceBus = await startServiceBusStandIn({ port: 0 });
  const relay = await spawnDelayRelay(serviceBus.port, rttMs);
  const settings = loggingSettings(JSON.parse(readFileSync(findHostJson(), "utf8")));
  try {
    await stagePackage({ stage, quiet: true });
    const { APPLICATIONINSIGHTS_CONNECTION_STRING: _off, ...inherited } = process.env;
    const env: NodeJS.ProcessEnv = { ...inherited, ...backing.settings, ALLOW_LOOPBACK_ENDPOINTS: "true" };
    const config = loadConfig(env);
    const options = {
      cosmosHost: new URL(config.COSMOS_ENDPOINT).host,
      instanceMemoryMb: INSTANCE_MEMORY_MB,
      endpointCacheSeconds: config.ENDPOINT_CACHE_SECONDS,
    };
    const results = await runRounds(rounds, async (round) => {
      const runs: CostRun[] = COST_CASES.map((each) => ({
        ...each,
        label: `${each.label}-r${round}`,
        // The 1,000-a-second case is bounded in count, not time: it shows group commit, not a bill.
        events: Math.min(each.eventsPerSecond * seconds, 3000),
        connectionStrings: Array.from({ length: each.endpoints }, (_, index) =>
          throughRelay(serviceBus.connectionString(`cost-${each.label}-r${round}-${index}`), relay),
        ),
      }));
      const worker = path.join(projectRoot(), "dist", "bench", "cost-child-main.js");
      const reportFile = path.join(path.dirname(stage), `report-${round}.json`);
      await runChild([worker, stage, JSON.stringify(runs), reportFile], env);
      const report = JSON.parse(readFileSync(reportFile, "utf8")) as CostChildReport;
      const quantities: CostRound["quantities"] = {};
      runs.forEach((run, index) => {
        const figures = report.runs[index];
        if (!figures) throw new Error(`the child reported no run ${run.label}`);
        const accepted = Array.from(
          { length: run.endpoints },
          (_, endpoint) =>
            serviceBus.topicStats(`cost-${COST_CASES[index]?.label}-r${round}-${endpoint}`).accepted,
        ).reduce((sum, count) => sum + count, 0);
        const label = COST_CASES[index]?.label as string;
        // The warm-up event of each run is sent too: one message a topic.
        quantities[label] = {
          ...unitQuantities(run, figures, settings, options),
          serviceBusMessages: (accepted - run.endpoints) / run.events,
        };
      });
      return { quantities, rssAfterLoadMb: report.rssAfterLoadMb, rssMaxMb: report.rssMaxMb };
    });
    return {
      rounds: results,
      settings,
      maxPollingIntervalMs: readHostSettings().queues.maxPollingIntervalMs,
    };
  } finally {
    await relay.close();
    await serviceBus.close();
    await backing.stop();
    rmSync(path.dirname(stage), { recursive: true, force: true });
  }
}

const sum = (record: Record<string, number>) =>
  Object.values(record).reduce((total, value) => total + value, 0);

/** The steady share of wall time billed at `perSecond`, from evenly spread events and the measured executions. */
export function gbSecondsPerUnitAt(
  q: UnitQuantities,
  kind: CostRun["kind"],
  perSecond: number,
  lagMs: number,
) {
  const executions: Execution[] = [];
  const units = 200;
  const perRequest =
    kind === "events" ? Math.max(1, Math.round(1 / (q.executions["twinEvents-ingest"] ?? 1))) : 1;
  const requests = units / perRequest;
  const httpMs = Object.entries(q.wallMs).find(([name]) => name !== "twinEvents-deliver")?.[1] ?? 0;
  const deliverMs = q.wallMs["twinEvents-deliver"] ?? 0;
  for (let index = 0; index < requests; index++) {
    const start = (index * perRequest * 1000) / perSecond;
    executions.push({ start, end: start + httpMs });
    // Each request's message is delivered once the trigger polls again (half its longest wait, on average).
    if (kind === "events")
      executions.push({ start: start + httpMs + lagMs, end: start + httpMs + lagMs + deliverMs });
  }
  return gbSeconds(billedMs(executions), INSTANCE_MEMORY_MB) / units;
}

export interface Dollars {
  executions: number;
  gbSeconds: number;
  ru: number;
  storage: number;
  telemetry: number;
  total: number;
}

/** Telemetry bytes per unit at `perSecond`: the sampled rows at the share sampling keeps at that rate. */
export function telemetryAt(q: UnitQuantities, settings: LoggingSettings, perSecond: number): number {
  const t = q.telemetry;
  const measuredRate = q.achievedPerSecond;
  const share = keptShare(settings, "Request", t.sampledItems * perSecond);
  const periodic = ((t.aggregator + t.metrics) * measuredRate) / perSecond;
  const unsampled = t.total - t.requests - t.aggregator - t.metrics;
  return unsampled + t.sampledBytesBeforeSampling * share + periodic;
}

/** USD per unit, by what is billed, at `perSecond` (GB-s as measured when it is the measured rate). */
export function dollarsPerUnit(
  q: UnitQuantities,
  kind: CostRun["kind"],
  settings: LoggingSettings,
  perSecond: number,
  lagMs: number,
): Dollars {
  const measured = Math.abs(perSecond - q.achievedPerSecond) / perSecond < 0.2;
  const dollars = {
    executions: sum(q.executions) * PRICES.flexExecution.usd,
    gbSeconds:
      (measured ? q.gbSeconds : gbSecondsPerUnitAt(q, kind, perSecond, lagMs)) * PRICES.flexGbSecond.usd,
    ru: q.ru * PRICES.cosmosRu.usd,
    storage: sum(q.storage) * PRICES.queueOperation.usd,
    telemetry: (telemetryAt(q, settings, perSecond) / 1e9) * PRICES.logAnalyticsGb.usd,
    total: 0,
  };
  dollars.total = dollars.executions + dollars.gbSeconds + dollars.ru + dollars.storage + dollars.telemetry;
  return dollars;
}

/** A month of `volume` units spread evenly, with the Flex free grant taken off. */
export function monthlyUsd(
  q: UnitQuantities,
  kind: CostRun["kind"],
  settings: LoggingSettings,
  volume: number,
  lagMs: number,
) {
  const perSecond = volume / SECONDS_A_MONTH;
  const unit = dollarsPerUnit(q, kind, settings, perSecond, lagMs);
  const executions =
    Math.max(0, sum(q.executions) * volume - FLEX_FREE_GRANT.executions) * PRICES.flexExecution.usd;
  const gbs = unit.gbSeconds / PRICES.flexGbSecond.usd;
  const gbSecondsUsd = Math.max(0, gbs * volume - FLEX_FREE_GRANT.gbSeconds) * PRICES.flexGbSecond.usd;
  return (unit.ru + unit.storage + unit.telemetry) * volume + executions + gbSecondsUsd;
}

const usd = (value: number) => `$${value.toFixed(2)}`;
const fixed = (digits: number) => (value: number) => value.toFixed(digits);

export function printCost(results: CostResults): void {
  const { rounds, settings, maxPollingIntervalMs } = results;
  const lagMs = maxPollingIntervalMs / 2;
  for (const error of rounds.errors) console.log(`  round ${error.round} failed: ${error.message}`);
  if (rounds.values.length === 0) return;
  const of = (label: string) => rounds.values.map((round) => round.quantities[label] as UnitQuantities);
  const range = (label: string, pick: (q: UnitQuantities) => number, format = fixed(2)) =>
    formatRange(of(label).map(pick), format);
  const kindOf = (label: string) => (label === "api" ? "api" : "events") as CostRun["kind"];
  const perMillion = (q: UnitQuantities, kind: CostRun["kind"]) =>
    dollarsPerUnit(q, kind, settings, RATE, lagMs).total * 1e6;
  const million = (label: string, perSecond: number, pick: (d: Dollars) => number = (d) => d.total) =>
    range(label, (q) => pick(dollarsPerUnit(q, kindOf(label), settings, perSecond, lagMs)) * 1e6, usd);
  console.log(
    `  one instance of ${INSTANCE_MEMORY_MB} MB at ${RATE} a second; per delivered event (or API call), ranges over ${rounds.values.length} rounds:`,
  );
  const head = (cells: string[]) =>
    console.log(`  ${cells.map((cell, i) => cell.padEnd(i === 0 ? 27 : 17)).join("")}`);
  head([
    "case",
    "executions",
    "wall ms",
    "billed share",
    "GB-s",
    "RU",
    "queue ops",
    "SB msgs",
    "telemetry B",
    "traces",
  ]);
  // Below 100 a second group commit has little to coalesce: one by one is priced from the run at 10 a second.
  const slowly = (label: string) => (label.startsWith("one-by-one") ? "group-10" : label);
  const cases: [string, string][] = [
    ["one-by-one-1", "one by one, 1 endpoint"],
    ["batched-1", "20 a request, 1 endpoint"],
    ["one-by-one-6", "one by one, 6 endpoints"],
    ["batched-6", "20 a request, 6 endpoints"],
    ["api", "API calls (80/10/10 mix)"],
  ];
  for (const [label, name] of cases)
    head([
      name,
      range(label, (q) => sum(q.executions), fixed(3)),
      range(label, (q) => Object.values(q.wallMs).reduce((a, b) => Math.max(a, b), 0), fixed(1)),
      range(label, (q) => q.billedShare),
      range(label, (q) => q.gbSeconds, fixed(5)),
      range(label, (q) => q.ru, fixed(3)),
      range(label, (q) => sum(q.storage), fixed(3)),
      formatRange(
        rounds.values.map((round) => round.quantities[label]?.serviceBusMessages ?? 0),
        fixed(2),
      ),
      range(label, (q) => telemetryAt(q, settings, RATE), fixed(0)),
      range(label, (q) => q.telemetry.appTraceLines, fixed(3)),
    ]);
  console.log(
    "  wall ms: the longest function's mean; billed share: Flex's billed activity over the run's wall time;",
  );
  console.log(
    "  queue ops: Put, Get, Delete, Update of the app and the trigger; traces: app log lines host.json lets through.",
  );
  console.log("");
  console.log(
    `  USD per million, at ${RATE} a second (goals: one by one ≤ $1.30, 20 a request ≤ $0.13, API ≤ $3.25):`,
  );
  head(["case", "total", "executions", "GB-s", "RU", "queue", "telemetry", "at 10/s", "at 1/s"]);
  for (const [label, name] of cases)
    head([
      name,
      million(label, RATE),
      million(label, RATE, (d) => d.executions),
      million(label, RATE, (d) => d.gbSeconds),
      million(label, RATE, (d) => d.ru),
      million(label, RATE, (d) => d.storage),
      million(label, RATE, (d) => d.telemetry),
      million(slowly(label), 10),
      million(slowly(label), 1),
    ]);
  console.log(
    `  Azure Digital Twins: ${usd(PRICES.adtMessage.usd * 1e6)} per million messages routed, ${usd(PRICES.adtOperation.usd * 1e6)} per million operations.`,
  );
  console.log(
    `  at 10/s: one by one as measured at 10 a second (no coalescing); at 1/s, and 20 a request and API calls at both, GB-s from evenly spread events (a delivery ${lagMs} ms after its ingest) and sampling at that rate.`,
  );
  for (const label of ["one-by-one-1", "batched-1"]) {
    const part = (key: keyof UnitQuantities["storage"]) => range(label, (q) => q.storage[key], fixed(3));
    console.log(
      `  queue operations per event, ${label}: Put ${part("put")}, Get ${part("get")}, Delete ${part("delete")}, Update ${part("update")}, other ${part("other")}`,
    );
  }
  console.log("");
  console.log(
    "  events per queue message, one by one (group commit), at 10, 38, 100 and 1,000 events/s (achieved rate):",
  );
  for (const label of ["group-10", "group-38", "one-by-one-1", "group-1000"])
    console.log(
      `    ${range(label, (q) => 1 / q.queueMessages, fixed(2))} events a message at ${range(label, (q) => q.achievedPerSecond, fixed(0))} events/s`,
    );
  console.log("");
  console.log(
    "  a month, one endpoint, events spread evenly (0.4, 3.8 and 38 a second; one by one priced from the runs at 10 and 38 a second), Flex free grant taken off (USD):",
  );
  head(["a month", "one by one", "20 a request", "API calls", "ADT routing", "ADT ops"]);
  for (const volume of [1e6, 1e7, 1e8])
    head([
      `${volume / 1e6} million`,
      range(
        volume < 1e8 ? "group-10" : "group-38",
        (q) => monthlyUsd(q, "events", settings, volume, lagMs),
        usd,
      ),
      range("batched-1", (q) => monthlyUsd(q, "events", settings, volume, lagMs), usd),
      range("api", (q) => monthlyUsd(q, "api", settings, volume, lagMs), usd),
      usd(PRICES.adtMessage.usd * volume),
      usd(PRICES.adtOperation.usd * volume),
    ]);
  console.log("");
  console.log(
    `  resident memory of the instance's worker: ${formatRange(
      rounds.values.map((round) => round.rssAfterLoadMb),
      fixed(0),
    )} MB after load, at most ${formatRange(
      rounds.values.map((round) => round.rssMaxMb),
      fixed(0),
    )} MB under the runs above (instance: ${INSTANCE_MEMORY_MB} MB).`,
  );
  console.log("");
  const goals: [string, string, (q: UnitQuantities) => number, number][] = [
    ["one by one ≤ $1.30 a million (ADT's routing)", "one-by-one-1", (q) => perMillion(q, "events"), 1.3],
    ["20 a request ≤ $0.13 a million (a tenth of it)", "batched-1", (q) => perMillion(q, "events"), 0.13],
    ["API calls ≤ $3.25 a million (ADT's operations)", "api", (q) => perMillion(q, "api"), 3.25],
    ["telemetry one by one ≤ 300 bytes an event", "one-by-one-1", (q) => telemetryAt(q, settings, RATE), 300],
    ["telemetry 20 a request ≤ 50 bytes an event", "batched-1", (q) => telemetryAt(q, settings, RATE), 50],
  ];
  console.log(`  goals at ${RATE} a second, one endpoint: held in`);
  for (const [goal, label, pick, bound] of goals) {
    const values = of(label).map(pick);
    console.log(`    ${goal}: ${values.filter((value) => value <= bound).length} of ${values.length} rounds`);
  }
  console.log("");
  console.log("  prices:");
  for (const price of Object.values(PRICES))
    console.log(`    $${price.usd.toPrecision(3)} per ${price.per}: ${price.source}, read ${price.read}`);
}
