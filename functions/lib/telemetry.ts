import type { TokenCredential } from "@azure/identity";

/**
 * Exports the service's OpenTelemetry metrics (src/delivery/delivery-metrics.ts) to Application
 * Insights when APPLICATIONINSIGHTS_CONNECTION_STRING is set (in Azure: infra/main.bicep); anywhere
 * else nothing is loaded and the metrics calls stay no-ops.
 *
 * Metrics are all this adds: the host already sends requests, dependencies and the invocation logs
 * to Application Insights. So this is Azure Monitor's metric exporter behind the OpenTelemetry
 * metrics SDK, not the `@azure/monitor-opentelemetry` distro, which brings the whole OpenTelemetry
 * Node SDK (traces, logs, instrumentations and every OTLP exporter: 268 MB installed) to export
 * the same metrics the same way.
 *
 * Started by the queue function's first invocation (functions/twin-events.ts), not when the entry
 * points load: delivery is all that records these metrics, so an HTTP-only instance never loads
 * it. The instruments are made after the provider is registered (delivery-metrics.ts), so nothing
 * recorded is lost. OTEL_METRIC_EXPORT_INTERVAL (ms, OpenTelemetry's own setting) sets how often
 * they are sent: every 60 s unless set, as the distro does.
 *
 * Application Insights takes Entra ID-authenticated telemetry only (DisableLocalAuth): with
 * APPLICATIONINSIGHTS_AUTHENTICATION_STRING (`ClientId=<id>;Authorization=AAD`) the exporter signs
 * in as that managed identity, as the host does.
 */
export function startAzureMonitor(env: NodeJS.ProcessEnv = process.env): boolean {
  const connectionString = env.APPLICATIONINSIGHTS_CONNECTION_STRING;
  if (!connectionString) return false;
  const { AzureMonitorMetricExporter } =
    require("@azure/monitor-opentelemetry-exporter") as typeof import("@azure/monitor-opentelemetry-exporter");
  const { MeterProvider, PeriodicExportingMetricReader } =
    require("@opentelemetry/sdk-metrics") as typeof import("@opentelemetry/sdk-metrics");
  const { resourceFromAttributes } =
    require("@opentelemetry/resources") as typeof import("@opentelemetry/resources");
  const { metrics } = require("@opentelemetry/api") as typeof import("@opentelemetry/api");
  const exporter = new AzureMonitorMetricExporter({
    connectionString,
    credential: credentialOf(env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING),
  });
  const configured = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const interval = Number.isInteger(configured) && configured > 0 ? configured : 60_000;
  const provider = new MeterProvider({
    // Application Insights shows service.name as the cloud role; Azure sets WEBSITE_SITE_NAME to the app's name.
    resource: resourceFromAttributes({ "service.name": env.WEBSITE_SITE_NAME || "twin-resource-service" }),
    readers: [
      new PeriodicExportingMetricReader({
        exporter,
        exportIntervalMillis: interval,
        // The reader refuses a timeout longer than the interval; 30 s is its default.
        exportTimeoutMillis: Math.min(interval, 30_000),
      }),
    ],
  });
  metrics.setGlobalMeterProvider(provider);
  return true;
}

/** The managed identity APPLICATIONINSIGHTS_AUTHENTICATION_STRING names; none without `Authorization=AAD`. */
function credentialOf(authentication: string | undefined): TokenCredential | undefined {
  const fields = new Map(
    (authentication ?? "")
      .split(";")
      .map((part) => part.split("=").map((side) => side.trim()))
      .filter((pair): pair is [string, string] => pair.length === 2)
      .map(([key, value]) => [key.toLowerCase(), value]),
  );
  if (fields.get("authorization")?.toLowerCase() !== "aad") return undefined;
  const { ManagedIdentityCredential } = require("@azure/identity") as typeof import("@azure/identity");
  const clientId = fields.get("clientid");
  return clientId ? new ManagedIdentityCredential({ clientId }) : new ManagedIdentityCredential();
}

let started: boolean | undefined;

/** startAzureMonitor, once per process. */
export function startAzureMonitorOnce(): boolean {
  started ??= startAzureMonitor();
  return started;
}
