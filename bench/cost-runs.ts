import { billedMs, type Execution, gbSeconds } from "./flex-billing";
import type { RequestFacts } from "./http-requests";
import { requestUnits } from "./request-units";
import {
  AGGREGATOR_FLUSH_SECONDS,
  AGGREGATOR_METRICS,
  admitted,
  billedBytes,
  executionTraces,
  hostLevel,
  keptShare,
  type LoggingSettings,
  metricRow,
  requestRow,
  traceRow,
} from "./telemetry-model";

/** One run of bench/cost-child-main.ts: `events` events (or API calls) at a steady rate on one instance. */
export interface CostRun {
  label: string;
  kind: "events" | "api";
  endpoints: number;
  /** Events per ingest request (1: one by one). */
  eventsPerRequest: number;
  /** Events (or API calls) a second. */
  eventsPerSecond: number;
  events: number;
  /** One topic's connection string per endpoint (through the delay relay). */
  connectionStrings: string[];
}

export interface TimedExecution extends Execution {
  name: string;
  url: string | undefined;
  status: number;
}

export interface RunFigures {
  label: string;
  achievedPerSecond: number;
  windowMs: number;
  executions: TimedExecution[];
  requests: string[];
  responses: RequestFacts[];
  logs: { level: string; message: string; functionName: string }[];
  /** The endpoint cache's fill (the first message of an instance on a host), apart. */
  fill: { requests: string[]; responses: RequestFacts[] };
}

export interface CostChildReport {
  runs: RunFigures[];
  rssAfterLoadMb: number;
  rssMaxMb: number;
}

/** Storage transactions by kind, from the requests' `METHOD host/path` (queue messages, or else blob). */
export function storageOperations(requests: readonly string[], cosmosHost: string) {
  const counts = { put: 0, get: 0, delete: 0, update: 0, other: 0 };
  for (const request of requests) {
    const [method = "", target = ""] = request.split(" ");
    if (target.startsWith(cosmosHost)) continue;
    const onMessages = /\/messages(\/|$)/.test(target);
    if (onMessages && method === "POST") counts.put++;
    else if (onMessages && method === "GET") counts.get++;
    else if (onMessages && method === "DELETE") counts.delete++;
    else if (onMessages && method === "PUT") counts.update++;
    else counts.other++;
  }
  return counts;
}

function cosmosRu(requests: readonly string[], responses: readonly RequestFacts[], cosmosHost: string) {
  let ru = 0;
  requests.forEach((request, index) => {
    if ((request.split(" ")[1] ?? "").startsWith(cosmosHost))
      ru += requestUnits(request, responses[index] ?? { status: 0, bytes: 0 });
  });
  return ru;
}

/** What one event (or API call) of a run needs, apart from what depends on the rate it comes at. */
export interface UnitQuantities {
  label: string;
  units: number;
  achievedPerSecond: number;
  executions: Record<string, number>;
  /** Mean wall time of an execution, by function. */
  wallMs: Record<string, number>;
  /** Billed GB-s per unit over the run, on an instance of `instanceMemoryMb`. */
  gbSeconds: number;
  /** The billed share of the run's wall time: 1 when the instance was billed throughout. */
  billedShare: number;
  ru: number;
  storage: ReturnType<typeof storageOperations>;
  /** Queue messages per unit (events per message is its inverse). */
  queueMessages: number;
  telemetry: TelemetryPerUnit;
}

/** Billed bytes per unit, by what they are; sampled kinds as ingested at the run's rate. */
export interface TelemetryPerUnit {
  appTraces: number;
  appTraceLines: number;
  hostTraces: number;
  requests: number;
  requestRows: number;
  aggregator: number;
  metrics: number;
  total: number;
  /** Unsampled bytes of sampled rows per unit, and sampled items per unit, for pricing at another rate. */
  sampledBytesBeforeSampling: number;
  sampledItems: number;
}

/** The metric series delivery records per endpoint: the delivered counter and the latency histogram. */
const SERIES_PER_ENDPOINT = 2;
const METRIC_EXPORT_SECONDS = 60;

export function telemetryOf(
  figures: RunFigures,
  settings: LoggingSettings,
  units: number,
  perSecond: number,
  endpoints: number,
): TelemetryPerUnit {
  let appTraces = 0;
  let appTraceLines = 0;
  let sampledTraceBytes = 0;
  let sampledTraceItems = 0;
  const tracesSampled = settings.sampling.isEnabled && !settings.sampling.excludedTypes.includes("Trace");
  const addTrace = (
    functionName: string,
    category: string,
    level: ReturnType<typeof hostLevel>,
    text: string,
  ) => {
    if (!admitted(settings, category, level)) return 0;
    const bytes = billedBytes(traceRow(functionName, category, level, text));
    if (tracesSampled) {
      sampledTraceBytes += bytes;
      sampledTraceItems++;
    }
    return bytes;
  };
  for (const line of figures.logs) {
    const bytes = addTrace(
      line.functionName,
      `Function.${line.functionName}.User`,
      hostLevel(line.level),
      line.message,
    );
    if (bytes > 0) {
      appTraces += bytes;
      appTraceLines++;
    }
  }
  let hostTraces = 0;
  let requestBytes = 0;
  let requestItems = 0;
  for (const execution of figures.executions) {
    const ok = execution.status < 400;
    const ms = execution.end - execution.start;
    for (const text of executionTraces(execution.name, ms, ok))
      hostTraces += addTrace(
        execution.name,
        `Function.${execution.name}`,
        ok ? "Information" : "Error",
        text,
      );
    if (admitted(settings, "Host.Results", ok ? "Information" : "Error")) {
      requestBytes += billedBytes(requestRow(execution.name, execution.url, execution.status, ms));
      requestItems++;
    }
  }
  const sampledItems = (requestItems + sampledTraceItems) / units;
  const sampledBytesBeforeSampling = (requestBytes + sampledTraceBytes) / units;
  const requestShare = keptShare(settings, "Request", sampledItems * perSecond);
  const functions = new Set(figures.executions.map((execution) => execution.name)).size;
  const aggregatorRow = billedBytes(metricRow("twinEvents-deliver Count", { Category: "Host.Aggregator" }));
  const aggregator = admitted(settings, "Host.Aggregator", "Information")
    ? (functions * AGGREGATOR_METRICS.length * aggregatorRow) / (AGGREGATOR_FLUSH_SECONDS * perSecond)
    : 0;
  const seriesRow = billedBytes(
    metricRow("twin_events.delivered", {
      "twins.instance_id": "/subscriptions/…/digitalTwinsInstances/x",
      "twins.endpoint_name": "ep0",
    }),
  );
  const metrics = (endpoints * SERIES_PER_ENDPOINT * seriesRow) / (METRIC_EXPORT_SECONDS * perSecond);
  const perUnit = (bytes: number) => bytes / units;
  const requests = perUnit(requestBytes) * requestShare;
  const result = {
    appTraces: perUnit(appTraces) * (tracesSampled ? requestShare : 1),
    appTraceLines: appTraceLines / units,
    hostTraces: perUnit(hostTraces) * (tracesSampled ? requestShare : 1),
    requests,
    requestRows: (requestItems / units) * requestShare,
    aggregator,
    metrics,
    sampledBytesBeforeSampling,
    sampledItems,
    total: 0,
  };
  result.total = result.appTraces + result.hostTraces + result.requests + result.aggregator + result.metrics;
  return result;
}

/** What a run measured, per unit (event delivered, or API call). */
export function unitQuantities(
  run: CostRun,
  figures: RunFigures,
  settings: LoggingSettings,
  options: { cosmosHost: string; instanceMemoryMb: number; endpointCacheSeconds: number },
): UnitQuantities {
  const units = run.events;
  const executions: Record<string, number> = {};
  const wallMs: Record<string, number> = {};
  for (const execution of figures.executions) {
    executions[execution.name] = (executions[execution.name] ?? 0) + 1;
    wallMs[execution.name] = (wallMs[execution.name] ?? 0) + (execution.end - execution.start);
  }
  for (const name of Object.keys(wallMs))
    wallMs[name] = (wallMs[name] as number) / (executions[name] as number);
  const billed = billedMs(figures.executions);
  const first = Math.min(...figures.executions.map((execution) => execution.start));
  const last = Math.max(...figures.executions.map((execution) => execution.end));
  const storage = storageOperations(figures.requests, options.cosmosHost);
  // The fill is paid once per ENDPOINT_CACHE_SECONDS per instance and host, whatever the rate.
  const fillRu = cosmosRu(figures.fill.requests, figures.fill.responses, options.cosmosHost);
  const ru =
    cosmosRu(figures.requests, figures.responses, options.cosmosHost) / units +
    (run.kind === "events" ? fillRu / (options.endpointCacheSeconds * run.eventsPerSecond) : 0);
  const perUnit = (count: number) => count / units;
  return {
    label: run.label,
    units,
    achievedPerSecond: figures.achievedPerSecond,
    executions: Object.fromEntries(Object.entries(executions).map(([name, count]) => [name, perUnit(count)])),
    wallMs,
    gbSeconds: gbSeconds(billed, options.instanceMemoryMb) / units,
    billedShare: billed / Math.max(1, last - first),
    ru,
    storage: {
      put: perUnit(storage.put),
      get: perUnit(storage.get),
      delete: perUnit(storage.delete),
      update: perUnit(storage.update),
      other: perUnit(storage.other),
    },
    queueMessages: perUnit(storage.put),
    telemetry: telemetryOf(figures, settings, units, run.eventsPerSecond, run.endpoints),
  };
}
