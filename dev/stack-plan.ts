import * as path from "node:path";
import { type IssuerPlan, planLocalAuth } from "./auth-plan";
import { EXAMPLE_SUBSCRIPTION, EXAMPLE_TOPIC } from "./example-topic";
import { type IdentityPlan, planManagedIdentity } from "./identity-plan";
import { azuriteDataDir, localDataDir } from "./local-paths";
import { isSet, type Settings } from "./local-settings";
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
  SERVICEBUS_TLS_PORT: 5671,
  AZURITE_BLOB_TLS_PORT: 10443,
  IDENTITY_PORT: 7073,
} as const;

export type PortVariable = keyof typeof DEFAULT_PORTS;

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
  /** Always runs: Service Bus is a setting of each endpoint, which may point here or at a real namespace. */
  serviceBus: { port: number; connectionString: string; tlsPort: number };
  identity: IdentityPlan;
  /** Absent under AUTH_MODE=keys or when AUTH_AUTHORITY names another authority. */
  issuer?: IssuerPlan;
  /** Every port the launcher is about to listen on, checked before anything starts. */
  ports: { variable: PortVariable; port: number }[];
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
 * Decides, before anything starts, what runs where: a stand-in on its port for every backing
 * service not configured, and the settings the host will see (so they can be validated first).
 */
export function planStack(input: Settings): StackPlan {
  const settings: Settings = { ...input };
  const port = (variable: PortVariable) => {
    const value = readPort(settings, variable);
    settings[variable] = String(value);
    return value;
  };
  const missing = ["FUNCTION_KEY", "MASTER_KEY"].filter((name) => !isSet(settings[name]));
  if (missing.length > 0) {
    throw new StartupError(
      `${missing.join(" and ")} must be set (in local.settings.json or the environment) for the local host.`,
    );
  }
  const hostPort = port("PORT");
  const sbPort = port("SERVICEBUS_PORT");
  const plan: StackPlan = {
    settings,
    host: {
      port: hostPort,
      url: `http://127.0.0.1:${hostPort}`,
      functionKey: settings.FUNCTION_KEY as string,
      masterKey: settings.MASTER_KEY as string,
    },
    // The stand-in accepts any key; this is the emulator's documented form.
    serviceBus: {
      port: sbPort,
      connectionString: `Endpoint=sb://127.0.0.1:${sbPort}/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;EntityPath=${EXAMPLE_TOPIC}`,
      tlsPort: port("SERVICEBUS_TLS_PORT"),
    },
    identity: planManagedIdentity(settings, readPort(settings, "IDENTITY_PORT")),
    ports: [{ variable: "PORT", port: hostPort }],
  };
  // The stand-in makes these at start; the README's walkthrough receives from the example one.
  settings.SERVICEBUS_SUBSCRIPTIONS = [
    settings.SERVICEBUS_SUBSCRIPTIONS,
    `${EXAMPLE_TOPIC}/${EXAMPLE_SUBSCRIPTION}`,
  ]
    .filter(isSet)
    .join(",");

  // UseDevelopmentStorage=true asks for the emulator: Azurite starts, with a connection string naming its ports.
  const storageConfigured = Object.entries(settings).some(
    ([name, value]) =>
      isSet(value) &&
      ((name === "AzureWebJobsStorage" && !/^\s*UseDevelopmentStorage=true\s*$/i.test(value)) ||
        name.startsWith("AzureWebJobsStorage__")),
  );
  if (!storageConfigured) {
    const [blobPort, queuePort, blobTlsPort] = [
      port("AZURITE_BLOB_PORT"),
      port("AZURITE_QUEUE_PORT"),
      port("AZURITE_BLOB_TLS_PORT"),
    ];
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
    settings.AzureWebJobsStorage = devConnectionString(blobPort, queuePort);
    plan.ports.push(
      { variable: "AZURITE_BLOB_PORT", port: blobPort },
      { variable: "AZURITE_QUEUE_PORT", port: queuePort },
    );
  }

  if (!isSet(settings.COSMOS_ENDPOINT)) {
    const cosmosPort = port("COSMOS_PORT");
    const endpoint = `https://127.0.0.1:${cosmosPort}/`;
    plan.cosmos = {
      port: cosmosPort,
      endpoint,
      snapshotFile: path.join(localDataDir(settings), "cosmos-snapshot.json"),
    };
    settings.COSMOS_ENDPOINT = endpoint;
    settings.COSMOS_KEY = COSMOS_EMULATOR_KEY;
    // The local server's certificate is self-signed; config.ts allows this for loopback only.
    settings.COSMOS_DISABLE_TLS_VERIFICATION = "true";
    plan.ports.push({ variable: "COSMOS_PORT", port: cosmosPort });
  }

  plan.ports.push({ variable: "SERVICEBUS_PORT", port: sbPort });
  const issuer = planLocalAuth(settings, () => readPort(settings, "ISSUER_PORT"));
  if (issuer) {
    plan.issuer = issuer;
    plan.ports.push({ variable: "ISSUER_PORT", port: issuer.port });
  }
  plan.ports.push({ variable: "SERVICEBUS_TLS_PORT", port: plan.serviceBus.tlsPort });
  if (plan.azurite) plan.ports.push({ variable: "AZURITE_BLOB_TLS_PORT", port: plan.azurite.blobTlsPort });
  plan.ports.push({ variable: "IDENTITY_PORT", port: plan.identity.port });
  for (const [index, first] of plan.ports.entries()) {
    const clash = plan.ports.slice(index + 1).find((other) => other.port === first.port);
    if (clash) {
      throw new StartupError(
        `${first.variable} and ${clash.variable} are both ${first.port}; give each its own port.`,
      );
    }
  }

  // The stand-ins listen on loopback, so endpoints must be able to point there, unless the developer says otherwise.
  if (!isSet(settings.ALLOW_LOOPBACK_ENDPOINTS)) settings.ALLOW_LOOPBACK_ENDPOINTS = "true";
  return plan;
}
