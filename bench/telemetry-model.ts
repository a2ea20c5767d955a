/**
 * What reaches Application Insights, and how many bytes Log Analytics bills for it, from what an
 * app logged and executed: the Functions host's logging and sampling settings (host.json) applied
 * as the host applies them. The host is not here (it is .NET, and in Azure), so its rows are
 * modelled: per execution a `requests` row (category Host.Results: Information on success, Error on
 * failure) and the "Executing …" / "Executed …" traces (category Function.<name>: Information on
 * success, Error on failure); per function and aggregation period the Host.Aggregator metrics; per
 * metric series and export interval one customMetrics row of the app's OpenTelemetry metrics.
 * Each row's billed size is the length of its values written out, as Azure Monitor bills them
 * ("the billed size … is calculated from a string representation of the columns", standard
 * columns such as _ResourceId, _ItemId, _IsBillable, _BilledSize and Type not counted), from rows
 * made with this deployment's own values.
 */

const LEVELS = ["Trace", "Debug", "Information", "Warning", "Error", "Critical", "None"] as const;
export type HostLevel = (typeof LEVELS)[number];

export interface LoggingSettings {
  logLevel: Record<string, string>;
  sampling: {
    isEnabled: boolean;
    maxTelemetryItemsPerSecond: number;
    minSamplingPercentage: number;
    maxSamplingPercentage: number;
    excludedTypes: string[];
  };
}

/** host.json's `logging`, with the host's defaults where a key is left out (functions-host-json reference). */
export function loggingSettings(hostJson: { logging?: Record<string, unknown> }): LoggingSettings {
  const logging = (hostJson.logging ?? {}) as {
    logLevel?: Record<string, string>;
    applicationInsights?: { samplingSettings?: Record<string, unknown> };
  };
  const sampling = logging.applicationInsights?.samplingSettings ?? {};
  const number = (key: string, fallback: number) =>
    typeof sampling[key] === "number" ? (sampling[key] as number) : fallback;
  return {
    logLevel: logging.logLevel ?? {},
    sampling: {
      isEnabled: sampling.isEnabled !== false,
      maxTelemetryItemsPerSecond: number("maxTelemetryItemsPerSecond", 20),
      minSamplingPercentage: number("minSamplingPercentage", 0.1),
      maxSamplingPercentage: number("maxSamplingPercentage", 100),
      excludedTypes: String(sampling.excludedTypes ?? "")
        .split(";")
        .map((type) => type.trim())
        .filter(Boolean),
    },
  };
}

/** The level the worker's `information`, `warning`, … is to the host. */
export function hostLevel(workerLevel: string): HostLevel {
  const found = LEVELS.find((level) => level.toLowerCase() === workerLevel.toLowerCase());
  if (found) return found;
  if (workerLevel.toLowerCase() === "info") return "Information";
  throw new Error(`unknown log level '${workerLevel}'`);
}

/**
 * Whether a line of `category` at `level` passes logLevel: the rule of the longest category prefix
 * (at a dot) decides, else `default`, else Information, as .NET's logger filter does.
 */
export function admitted(settings: LoggingSettings, category: string, level: HostLevel): boolean {
  let rule: string | undefined;
  let ruleLength = -1;
  for (const [key, value] of Object.entries(settings.logLevel)) {
    if (key === "default") continue;
    const matches = category === key || category.startsWith(`${key}.`);
    if (matches && key.length > ruleLength) {
      rule = value;
      ruleLength = key.length;
    }
  }
  const minimum = hostLevel(rule ?? settings.logLevel.default ?? "Information");
  return minimum !== "None" && LEVELS.indexOf(level) >= LEVELS.indexOf(minimum);
}

export type TelemetryType = "Request" | "Trace" | "Exception" | "Metric";

/**
 * The share of a sampled type's items adaptive sampling keeps at `itemsPerSecond` (those of every
 * sampled type, per host): it aims at maxTelemetryItemsPerSecond, within the min and max
 * percentages. Metrics are never sampled.
 */
export function keptShare(settings: LoggingSettings, type: TelemetryType, itemsPerSecond: number): number {
  const { sampling } = settings;
  if (!sampling.isEnabled || type === "Metric" || sampling.excludedTypes.includes(type)) return 1;
  const aimed = itemsPerSecond > 0 ? sampling.maxTelemetryItemsPerSecond / itemsPerSecond : 1;
  return Math.min(
    sampling.maxSamplingPercentage / 100,
    Math.max(sampling.minSamplingPercentage / 100, aimed),
  );
}

/** One row as Log Analytics stores it: its billed size is that of its values, written out. */
export function billedBytes(row: Record<string, unknown>): number {
  let bytes = 0;
  for (const value of Object.values(row)) {
    if (value === undefined || value === "") continue;
    bytes += Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value));
  }
  return bytes;
}

/** The columns every App* row of a Function App carries, with this deployment's kind of values. */
function common(operationName: string) {
  return {
    TimeGenerated: "2026-12-01T19:36:10.1234567Z",
    OperationName: operationName,
    OperationId: "0af7651916cd43dd8448eb211c80319c",
    ParentId: "b7ad6b7169203331",
    AppRoleName: "func-api-abcdefghijklm",
    AppRoleInstance: "e9a2f1c0b3d4e5f60718293a4b5c6d7e8f9012345678",
    ClientType: "PC",
    ClientIP: "0.0.0.0",
    ClientCountryOrRegion: "Netherlands",
    ResourceGUID: "6b1f6f3c-0f4e-4d7a-9a51-1f2e3d4c5b6a",
    IKey: "0f8fad5b-d9cb-469f-a165-70867728950e",
    SDKVersion: "azurefunctions: 4.1040.0.0",
    ItemCount: 1,
  };
}

const HOST_PROPERTIES = {
  HostInstanceId: "d2c9e8a1-5b4f-4e3a-9c2d-1b0a9f8e7d6c",
  InvocationId: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  ProcessId: "4242",
};

/** A `requests` row of one execution of `functionName`, HTTP (with its URL) or not. */
export function requestRow(functionName: string, url: string | undefined, status: number, ms: number) {
  return {
    ...common(functionName),
    Id: "b7ad6b7169203331",
    Name: functionName,
    Url: url,
    Success: status < 400 ? "True" : "False",
    ResultCode: String(status),
    DurationMs: ms.toFixed(4),
    PerformanceBucket: ms < 250 ? "<250ms" : "250ms-500ms",
    Properties: {
      ...HOST_PROPERTIES,
      LogLevel: status < 400 ? "Information" : "Error",
      Category: "Host.Results",
      FullName: `Functions.${functionName}`,
      TriggerReason: url
        ? `This HTTP triggered function executed successfully.`
        : "New queue message detected",
      ...(url && { HttpMethod: "POST", HttpPath: new URL(url).pathname }),
    },
  };
}

/** A `traces` row: `message` logged in `category` at `level` during an invocation of `functionName`. */
export function traceRow(functionName: string, category: string, level: HostLevel, message: string) {
  return {
    ...common(functionName),
    Message: message,
    SeverityLevel: String(Math.min(4, Math.max(0, LEVELS.indexOf(level) - 1))),
    Properties: {
      ...HOST_PROPERTIES,
      LogLevel: level,
      Category: category,
      "prop__{OriginalFormat}": message,
    },
  };
}

/** A `customMetrics` row: one metric series' aggregate for one interval. */
export function metricRow(name: string, dimensions: Record<string, string>) {
  return {
    ...common(""),
    Name: name,
    Sum: "123.456",
    Min: "0.5",
    Max: "99.5",
    ItemCount: 60,
    Properties: dimensions,
  };
}

/** The host's two traces about one execution, in category `Function.<name>`. */
export function executionTraces(functionName: string, ms: number, succeeded: boolean): string[] {
  const id = HOST_PROPERTIES.InvocationId;
  return [
    `Executing 'Functions.${functionName}' (Reason='This function was programmatically called via the host APIs.', Id=${id})`,
    `Executed 'Functions.${functionName}' (${succeeded ? "Succeeded" : "Failed"}, Id=${id}, Duration=${Math.round(ms)}ms)`,
  ];
}

/** Host.Aggregator's metrics per function and flush (host.json aggregator, flushTimeout 30 s by default). */
export const AGGREGATOR_METRICS = [
  "Count",
  "AverageDurationMs",
  "MaxDurationMs",
  "MinDurationMs",
  "Successes",
  "Failures",
  "SuccessRate",
];
export const AGGREGATOR_FLUSH_SECONDS = 30;
