import type { TokenCredential } from "@azure/identity";

/**
 * Exports the service's OpenTelemetry metrics (src/delivery/delivery-metrics.ts) to Application
 * Insights, through `@azure/monitor-opentelemetry`, when APPLICATIONINSIGHTS_CONNECTION_STRING is
 * set (in Azure: infra/main.bicep). Anywhere else nothing is loaded: the package is required only
 * here, so local runs and tests do not pay for it, and the metrics calls stay no-ops.
 *
 * Started by the queue function's first invocation (functions/twin-events.ts), not when the entry
 * points load: delivery is all that records these metrics, and loading the distro takes 1.6–1.8 s
 * and ~50 MB, which an HTTP-only instance would otherwise pay on every cold start before its first
 * request. The instruments are made after the provider is registered (delivery-metrics.ts), so
 * nothing recorded is lost.
 *
 * The host already sends requests, dependencies and the invocation logs to Application Insights,
 * so the distro's own instrumentations (http, Azure SDK, databases, log libraries) are off: this
 * adds the custom metrics, not a second copy of what the host reports.
 *
 * Application Insights takes Entra ID-authenticated telemetry only (DisableLocalAuth): with
 * APPLICATIONINSIGHTS_AUTHENTICATION_STRING (`ClientId=<id>;Authorization=AAD`) the exporter signs
 * in as that managed identity, as the host does.
 */
export function startAzureMonitor(env: NodeJS.ProcessEnv = process.env): boolean {
  const connectionString = env.APPLICATIONINSIGHTS_CONNECTION_STRING;
  if (!connectionString) return false;
  const { useAzureMonitor } =
    require("@azure/monitor-opentelemetry") as typeof import("@azure/monitor-opentelemetry");
  const off = { enabled: false };
  useAzureMonitor({
    azureMonitorExporterOptions: {
      connectionString,
      credential: credentialOf(env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING),
    },
    enableLiveMetrics: false,
    instrumentationOptions: {
      azureSdk: off,
      http: off,
      mongoDb: off,
      mySql: off,
      postgreSql: off,
      redis: off,
      redis4: off,
      bunyan: off,
      winston: off,
    },
  });
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
