import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * host.json holds only settings the Functions host knows, so a misspelt key cannot be silently
 * ignored in Azure (the local host reads only the few it follows).
 *
 * The allowlist is the host.json JSON schema for version 2.0 with extension bundle 4 (Storage
 * extension 5 and later), definition "version-2-ext-5" of
 * https://json.schemastore.org/host.json (SchemaStore/schemastore, src/schemas/json/host.json),
 * which follows the reference at https://learn.microsoft.com/azure/azure-functions/functions-host-json.
 * Leaves (any value) are `true`; `LOG_LEVELS` marks logging.logLevel, whose keys are log categories.
 * Extensions this app does not use (durableTask, cosmosDB, eventHubs) are left out on purpose:
 * configuring one means adding its keys from the schema here.
 */
type Allow = true | typeof LOG_LEVELS | { readonly [key: string]: Allow };

const LOG_LEVELS = ["Critical", "Debug", "Error", "Information", "None", "Trace", "Warning"] as const;

const TIME_SPAN = /^\d{2}:\d{2}:\d{2}(?:\.\d+)?$/;

const HOST_JSON_V2: { readonly [key: string]: Allow } = {
  version: true,
  extensionBundle: { id: true, version: true },
  aggregator: { batchSize: true, flushTimeout: true },
  functions: true,
  functionTimeout: true,
  healthMonitor: {
    enabled: true,
    healthCheckInterval: true,
    healthCheckWindow: true,
    healthCheckThreshold: true,
    counterThreshold: true,
  },
  languageWorker: { workersDirectory: true },
  logging: {
    logLevel: LOG_LEVELS,
    fileLoggingMode: true,
    applicationInsights: {
      samplingSettings: {
        isEnabled: true,
        maxTelemetryItemsPerSecond: true,
        evaluationInterval: true,
        initialSamplingPercentage: true,
        samplingPercentageIncreaseTimeout: true,
        samplingPercentageDecreaseTimeout: true,
        minSamplingPercentage: true,
        maxSamplingPercentage: true,
        movingAverageRatio: true,
        excludedTypes: true,
        includedTypes: true,
      },
      enableLiveMetrics: true,
      enableLiveMetricsFilters: true,
      enableDependencyTracking: true,
      enablePerformanceCountersCollection: true,
      httpAutoCollectionOptions: {
        enableHttpTriggerExtendedInfoCollection: true,
        enableW3CDistributedTracing: true,
        enableResponseHeaderInjection: true,
      },
      snapshotConfiguration: true,
    },
  },
  managedDependency: { enabled: true },
  retry: {
    strategy: true,
    maxRetryCount: true,
    delayInterval: true,
    minimumInterval: true,
    maximumInterval: true,
  },
  customHandler: {
    description: { defaultExecutablePath: true, workingDirectory: true, arguments: true },
    enableForwardingHttpRequest: true,
  },
  singleton: {
    lockPeriod: true,
    listenerLockPeriod: true,
    listenerLockRecoveryPollingInterval: true,
    lockAcquisitionTimeout: true,
    lockAcquisitionPollingInterval: true,
  },
  watchDirectories: true,
  watchFiles: true,
  concurrency: { dynamicConcurrencyEnabled: true, snapshotPersistenceEnabled: true },
  sendCanceledInvocationsToWorker: true,
  extensions: {
    http: {
      routePrefix: true,
      maxConcurrentRequests: true,
      maxOutstandingRequests: true,
      dynamicThrottlesEnabled: true,
      hsts: { isEnabled: true, excludedHosts: true, includeSubDomains: true, maxAge: true, preload: true },
      customHeaders: true,
    },
    // "queues-extension-v2" of the schema: time spans as hh:mm:ss, and messageEncoding.
    queues: {
      maxPollingInterval: true,
      visibilityTimeout: true,
      batchSize: true,
      maxDequeueCount: true,
      newBatchThreshold: true,
      messageEncoding: true,
    },
    blobs: { maxDegreeOfParallelism: true, poisonBlobThreshold: true },
    sendGrid: { from: true },
    serviceBus: {
      clientRetryOptions: { mode: true, tryTimeout: true, delay: true, maxDelay: true, maxRetries: true },
      prefetchCount: true,
      transportType: true,
      webProxy: true,
      autoCompleteMessages: true,
      maxAutoLockRenewalDuration: true,
      maxConcurrentCalls: true,
      maxConcurrentSessions: true,
      maxMessageBatchSize: true,
      maxBatchWaitTime: true,
      sessionIdleTimeout: true,
      enableCrossEntityTransactions: true,
    },
  },
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every key path of `value` the allowlist does not know, and every logLevel that is not a level. */
function unknownKeys(
  value: Record<string, unknown>,
  allow: { readonly [key: string]: Allow },
  at = "",
): string[] {
  return Object.entries(value).flatMap(([key, child]) => {
    const where = at ? `${at}.${key}` : key;
    const rule = allow[key];
    if (rule === undefined) return [where];
    if (rule === true) return [];
    if (rule === LOG_LEVELS) {
      if (!isObject(child)) return [`${where} (not an object)`];
      return Object.entries(child)
        .filter(([, level]) => !LOG_LEVELS.includes(level as (typeof LOG_LEVELS)[number]))
        .map(([category]) => `${where}.${category} (not a log level)`);
    }
    if (!isObject(child)) return [`${where} (not an object)`];
    return unknownKeys(child, rule as { readonly [key: string]: Allow }, where);
  });
}

const hostJson = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "host.json"), "utf8")) as Record<
  string,
  unknown
>;

function at(...keys: string[]): unknown {
  return keys.reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), hostJson);
}

describe("host.json", () => {
  it("has only keys the Functions host knows, at every level", () => {
    expect(unknownKeys(hostJson, HOST_JSON_V2)).toEqual([]);
  });

  it("fails the check on an unknown or misplaced key (the check is not vacuous)", () => {
    const broken = {
      ...hostJson,
      extensions: { queues: { batchSize: 1, visibilityTimeOut: "00:00:10" }, http: { routPrefix: "" } },
      logging: { logLevel: { default: "Verbose" } },
      functionsTimeout: "00:05:00",
    };
    expect(unknownKeys(broken, HOST_JSON_V2).sort()).toEqual([
      "extensions.http.routPrefix",
      "extensions.queues.visibilityTimeOut",
      "functionsTimeout",
      "logging.logLevel.default (not a log level)",
    ]);
  });

  it("is schema version 2.0 on extension bundle 4", () => {
    expect(at("version")).toBe("2.0");
    expect(at("extensionBundle", "id")).toBe("Microsoft.Azure.Functions.ExtensionBundle");
    expect(at("extensionBundle", "version")).toBe("[4.*, 5.0.0)");
  });

  it("serves routes without a prefix: a resource's URL path is its id", () => {
    expect(at("extensions", "http", "routePrefix")).toBe("");
  });

  it("sets the queue trigger behaviour the service and the local host rely on", () => {
    // The service writes base64 messages (src/events/queue-message.ts); the local host reads the rest.
    expect(at("extensions", "queues", "messageEncoding")).toBe("base64");
    for (const key of ["batchSize", "newBatchThreshold", "maxDequeueCount"]) {
      const value = at("extensions", "queues", key);
      expect({ key, isPositiveInteger: Number.isInteger(value) && (value as number) > 0 }).toEqual({
        key,
        isPositiveInteger: true,
      });
    }
    const batchSize = at("extensions", "queues", "batchSize") as number;
    expect(batchSize).toBeLessThanOrEqual(32);
    for (const key of ["visibilityTimeout", "maxPollingInterval"]) {
      expect({ key, value: at("extensions", "queues", key) }).toEqual({
        key,
        value: expect.stringMatching(TIME_SPAN),
      });
    }
  });
});
