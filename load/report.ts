import type { DeliveryCounters } from "../src/delivery/delivery-counters";
import type { HostLog } from "./host-log";
import type { WorkerMessage } from "./protocol";
import type { LoadStats, RouteStats } from "./stats";

/** How `npm run load` prints: a progress line every few seconds, then the summary. */

function whole(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-";
}

function ms(value: number): string {
  if (!Number.isFinite(value)) return "-";
  return value < 10 ? value.toFixed(1) : whole(value);
}

export function progressLine(
  elapsedSeconds: number,
  requests: number,
  recentPerSecond: number,
  extra: string,
): string {
  return `[${elapsedSeconds.toFixed(0).padStart(4)} s] ${whole(requests).padStart(9)} requests, ${whole(recentPerSecond).padStart(6)} req/s now; ${extra}`;
}

const COLUMNS = [
  "requests",
  "req/s",
  "p50 ms",
  "p99 ms",
  "max ms",
  "2xx",
  "3xx",
  "4xx ok",
  "4xx bad",
  "5xx",
  "transport",
];

function row(name: string, stats: RouteStats, seconds: number): string {
  const { p50, p99, max } = stats.percentiles();
  const expected4xx = stats.count(4) - stats.unexpected4xx;
  const cells = [
    whole(stats.requests),
    whole(stats.requests / seconds),
    ms(p50),
    ms(p99),
    ms(max),
    whole(stats.count(2)),
    whole(stats.count(3)),
    whole(expected4xx),
    whole(stats.unexpected4xx),
    whole(stats.count(5)),
    whole(stats.transportErrors),
  ];
  return `  ${name.padEnd(27)}${cells.map((cell, i) => cell.padStart(Math.max(8, (COLUMNS[i] ?? "").length + 2))).join("")}`;
}

function statusBreakdown(stats: RouteStats): string {
  return [...stats.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status} x ${whole(count)}`)
    .join(", ");
}

function printRoutes(stats: LoadStats, seconds: number): void {
  console.log(
    `  ${"route".padEnd(27)}${COLUMNS.map((column) => column.padStart(Math.max(8, column.length + 2))).join("")}`,
  );
  const names = [...stats.routes.keys()].sort();
  for (const name of names) console.log(row(name, stats.routes.get(name) as RouteStats, seconds));
  const overall = stats.overall();
  console.log(row("overall", overall, seconds));
  console.log("");
  console.log(`  statuses: ${statusBreakdown(overall)}`);
  for (const name of names) {
    const route = stats.routes.get(name) as RouteStats;
    for (const sample of route.samples) console.log(`  ${name}: ${sample}`);
  }
}

function deliveryCounters(counters: DeliveryCounters): string {
  return Object.entries(counters)
    .map(([name, count]) => `${name}=${whole(count)}`)
    .join(" ");
}

export interface LoadSummary {
  clients: number;
  seconds: number;
  stats: LoadStats;
  /** Messages waiting on the twin-events queue when the load stopped. */
  backlog: number;
  poisoned: number;
  unwatchedEvents: number;
  watchedTopics: number;
  drained: Extract<WorkerMessage, { type: "drained" }>;
  hostLog: HostLog;
}

export function printSummary(summary: LoadSummary): void {
  const { stats, drained, hostLog } = summary;
  console.log("");
  console.log(
    `Summary: ${whole(stats.requests)} requests in ${summary.seconds.toFixed(1)} s from ${summary.clients} clients, ${whole(stats.requests / summary.seconds)} req/s.`,
  );
  console.log("");
  printRoutes(stats, summary.seconds);
  console.log("");
  console.log(
    `  delivery: ${whole(drained.delivered)} of ${whole(drained.expected)} deliveries owed to the ${summary.watchedTopics} watched topics arrived${drained.complete ? "" : " (INCOMPLETE)"}, the last ${drained.seconds.toFixed(1)} s after the load stopped; ${whole(drained.duplicates)} repeats`,
  );
  console.log(
    `  queues: ${whole(summary.backlog)} messages waiting on twin-events when the load stopped, ${whole(summary.poisoned)} on the poison queue at the end; ${whole(summary.unwatchedEvents)} events accepted for churned instances (not checked)`,
  );
  console.log(
    `  host log: ${deliveryCounters(hostLog.delivery)}; ${hostLog.count("warning")} warnings, ${hostLog.count("error", "critical")} errors`,
  );
  for (const line of hostLog.problems) console.log(`    ${line.split("\n")[0]}`);
  console.log("");
  const failed = stats.fiveHundreds + stats.transportErrors;
  console.log(
    failed === 0
      ? "Result: PASS: no 5xx, no transport errors."
      : `Result: FAIL: ${stats.fiveHundreds} answers were 5xx and ${stats.transportErrors} requests failed in transport (the bar is zero).`,
  );
}
