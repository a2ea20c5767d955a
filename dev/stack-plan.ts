import { type IssuerPlan, planLocalAuth } from "./auth-plan";
import { EXAMPLE_SUBSCRIPTION, EXAMPLE_TOPIC } from "./example-topic";
import { type IdentityPlan, planManagedIdentity } from "./identity-plan";
import { azuriteDataDir, cosmosSnapshotFile } from "./local-paths";
import type { Settings } from "./local-settings";
import { DEV_ACCOUNT, devConnectionString } from "./stand-ins/azurite";
import { COSMOS_EMULATOR_KEY } from "./stand-ins/cosmos-server";
import { StartupError } from "./startup-error";

export const DEFAULT_PORTS = {
  PORT: 7071,
  AZURITE_BLOB_PORT: 10000,
  AZURITE_QUEUE_PORT: 10001,
  COSMOS_PORT: 8081,
  SERVICEBUS_PORT: 5672,
  ISSUER_PORT: 7072,
  /** AMQPS: AMQP's TLS port, as Service Bus uses it. */
  SERVICEBUS_TLS_PORT: 5671,
  AZURITE_BLOB_TLS_PORT: 10443,
  /** The managed-identity stand-in (IDENTITY_ENDPOINT). */
  IDENTITY_PORT: 7073,
} as const;

export type PortVariable = keyof typeof DEFAULT_PORTS;

export interface PortSetting {
  variable: PortVariable;
  port: number;
}

export interface StackPlan {
  /** Every setting the host runs with, the endpoints of the stand-ins filled in. */
  settings: Settings;
  host: { port: number; url: string; functionKey: string; masterKey: string };
  /** Absent when AzureWebJobsStorage (or its identity-based settings) points at a real account. */
  azurite?: {
    blobPort: number;
    queuePort: number;
    blobEndpoint: string;
    queueEndpoint: string;
    dataDir: string;
    /** Blob over HTTPS with OAuth (the local certificate), for identity-based dead letters. */
    blobTlsPort: number;
    blobTlsEndpoint: string;
  };
  /** Absent when COSMOS_ENDPOINT points at a real account. */
  cosmos?: { port: number; endpoint: string; snapshotFile: string };
  /**
   * The Service Bus stand-in always runs: Service Bus is not a setting of the service but of each
   * endpoint (its connection strings), so endpoints may point here or at a real namespace.
   */
  serviceBus: {
    port: number;
    connectionString: string;
    /** AMQPS with the local certificate: what identity-based endpoints name (`sb://localhost:{port}`). */
    tlsPort: number;
  };
  /** The managed-identity stand-in: always planned, as Service Bus is (endpoints may use identities). */
  identity: IdentityPlan;
  /** The local OpenID issuer; absent under AUTH_MODE=keys or when AUTH_AUTHORITY names another authority. */
  issuer?: IssuerPlan;
  /** Every port the launcher is about to listen on, checked before anything starts. */
  ports: PortSetting[];
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

export function readPort(settings: Record<string, string | undefined>, variable: PortVariable): number {
  const raw = settings[variable];
  if (!isSet(raw)) return DEFAULT_PORTS[variable];
  const port = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || port < 1 || port > 65535) {
    throw new StartupError(`${variable} must be a port number from 1 to 65535.`);
  }
  return port;
}

/**
 * A real storage account is configured by a connection string or by the identity-based
 * AzureWebJobsStorage__* settings. `UseDevelopmentStorage=true` asks for the emulator, so it
 * counts as not configured: Azurite starts and gets an explicit connection string with its ports.
 */
export function storageConfigured(settings: Settings): boolean {
  return Object.entries(settings).some(
    ([name, value]) =>
      isSet(value) &&
      ((name === "AzureWebJobsStorage" && !/^\s*UseDevelopmentStorage=true\s*$/i.test(value)) ||
        name.startsWith("AzureWebJobsStorage__")),
  );
}

function requireKeys(settings: Settings): { functionKey: string; masterKey: string } {
  const missing = (["FUNCTION_KEY", "MASTER_KEY"] as const).filter((name) => !isSet(settings[name]));
  if (missing.length > 0) {
    throw new StartupError(
      `${missing.join(" and ")} must be set (in local.settings.json or the environment) for the local host.`,
    );
  }
  return { functionKey: settings.FUNCTION_KEY as string, masterKey: settings.MASTER_KEY as string };
}

function assertDistinct(ports: PortSetting[]): void {
  for (const [index, first] of ports.entries()) {
    const clash = ports.slice(index + 1).find((other) => other.port === first.port);
    if (clash) {
      throw new StartupError(
        `${first.variable} and ${clash.variable} are both ${first.port}; give each its own port.`,
      );
    }
  }
}

/**
 * Decides, before anything starts, what runs where: a stand-in for every backing service that is
 * not configured, on its port, and the settings the host will see. Knowing the stand-ins'
 * endpoints up front lets the launcher validate the complete settings before starting anything.
 */
export function planStack(input: Settings): StackPlan {
  const settings: Settings = { ...input };
  const hostPort = readPort(settings, "PORT");
  settings.PORT = String(hostPort);
  const plan: StackPlan = {
    settings,
    host: { port: hostPort, url: `http://127.0.0.1:${hostPort}`, ...requireKeys(settings) },
    serviceBus: {
      ...serviceBusPlan(readPort(settings, "SERVICEBUS_PORT")),
      tlsPort: readPort(settings, "SERVICEBUS_TLS_PORT"),
    },
    identity: planManagedIdentity(settings, readPort(settings, "IDENTITY_PORT")),
    ports: [{ variable: "PORT", port: hostPort }],
  };
  settings.SERVICEBUS_PORT = String(plan.serviceBus.port);
  settings.SERVICEBUS_TLS_PORT = String(plan.serviceBus.tlsPort);
  // The stand-in makes these at start; the README's walkthrough receives from the example one.
  settings.SERVICEBUS_SUBSCRIPTIONS = [
    settings.SERVICEBUS_SUBSCRIPTIONS,
    `${EXAMPLE_TOPIC}/${EXAMPLE_SUBSCRIPTION}`,
  ]
    .filter(isSet)
    .join(",");

  if (!storageConfigured(settings)) {
    const blobPort = readPort(settings, "AZURITE_BLOB_PORT");
    const queuePort = readPort(settings, "AZURITE_QUEUE_PORT");
    const blobTlsPort = readPort(settings, "AZURITE_BLOB_TLS_PORT");
    plan.azurite = {
      blobPort,
      queuePort,
      blobEndpoint: `http://127.0.0.1:${blobPort}/${DEV_ACCOUNT}`,
      queueEndpoint: `http://127.0.0.1:${queuePort}/${DEV_ACCOUNT}`,
      dataDir: azuriteDataDir(settings),
      blobTlsPort,
      // localhost, not 127.0.0.1: the name a client checks the certificate for, as in Azure.
      blobTlsEndpoint: `https://localhost:${blobTlsPort}/${DEV_ACCOUNT}`,
    };
    settings.AZURITE_BLOB_TLS_PORT = String(blobTlsPort);
    settings.AzureWebJobsStorage = devConnectionString(blobPort, queuePort);
    settings.AZURITE_BLOB_PORT = String(blobPort);
    settings.AZURITE_QUEUE_PORT = String(queuePort);
    plan.ports.push(
      { variable: "AZURITE_BLOB_PORT", port: blobPort },
      { variable: "AZURITE_QUEUE_PORT", port: queuePort },
    );
  }

  if (!isSet(settings.COSMOS_ENDPOINT)) {
    const port = readPort(settings, "COSMOS_PORT");
    const endpoint = `https://127.0.0.1:${port}/`;
    plan.cosmos = { port, endpoint, snapshotFile: cosmosSnapshotFile(settings) };
    settings.COSMOS_ENDPOINT = endpoint;
    settings.COSMOS_KEY = COSMOS_EMULATOR_KEY;
    // The local server's certificate is self-signed; config.ts allows this for loopback only.
    settings.COSMOS_DISABLE_TLS_VERIFICATION = "true";
    settings.COSMOS_PORT = String(port);
    plan.ports.push({ variable: "COSMOS_PORT", port });
  }

  plan.ports.push({ variable: "SERVICEBUS_PORT", port: plan.serviceBus.port });
  const issuer = planLocalAuth(settings, () => readPort(settings, "ISSUER_PORT"));
  if (issuer) {
    plan.issuer = issuer;
    plan.ports.push({ variable: "ISSUER_PORT", port: issuer.port });
  }
  plan.ports.push(
    { variable: "SERVICEBUS_TLS_PORT", port: plan.serviceBus.tlsPort },
    ...(plan.azurite ? [{ variable: "AZURITE_BLOB_TLS_PORT" as const, port: plan.azurite.blobTlsPort }] : []),
    { variable: "IDENTITY_PORT", port: plan.identity.port },
  );
  assertDistinct(plan.ports);

  // The stand-ins listen on loopback, so endpoints must be able to point there: admitted unless
  // the developer says otherwise (Azure never sets it).
  if (!isSet(settings.ALLOW_LOOPBACK_ENDPOINTS)) settings.ALLOW_LOOPBACK_ENDPOINTS = "true";

  return plan;
}

/** The stand-in accepts any key; this connection string is the emulator's documented form. */
function serviceBusPlan(port: number): Omit<StackPlan["serviceBus"], "tlsPort"> {
  return {
    port,
    connectionString: `Endpoint=sb://127.0.0.1:${port}/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;EntityPath=${EXAMPLE_TOPIC}`,
  };
}
