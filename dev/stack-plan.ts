import { randomBytes } from "node:crypto";
import * as path from "node:path";
import { EXAMPLE_SUBSCRIPTION, EXAMPLE_TOPIC } from "./example-topic";
import { issuerKeyFile, localDataDir } from "./local-paths";
import { isSet, type Settings } from "./local-settings";
import { localTlsFiles } from "./local-tls";
import { DEV_ACCOUNT, devConnectionString } from "./stand-ins/azurite";
import { COSMOS_EMULATOR_KEY } from "./stand-ins/cosmos-server";
// The identities and principals only, not the stand-ins: the host's own process imports this module.
import { LOCAL_SERVICEBUS_SENDERS, USER_ASSIGNED_IDENTITIES } from "./stand-ins/managed-identity/identities";
import {
  DEVELOPER_OBJECT_ID,
  issuerUrl,
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
} from "./stand-ins/openid/principals";
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

export type StackPlan = ReturnType<typeof planStack>;

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
 * An AUTH_AUTHORITY in the local issuer's form (an earlier start's, from a sourced local.env) is
 * replaced by this start's, so an old port never points the host at an issuer that is not there.
 */
export function isLocalIssuerAuthority(value: string): boolean {
  if (!URL.canParse(value.trim())) return false;
  const url = new URL(value.trim());
  return (
    url.protocol === "http:" &&
    ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname) &&
    url.pathname.replace(/\/$/, "").toLowerCase() === `/${LOCAL_TENANT_ID}/v2.0`
  );
}

/**
 * Managed identities locally as in a function app: IDENTITY_ENDPOINT and IDENTITY_HEADER (MSAL's
 * App Service source), the user-assigned identities endpoints may name, and the Service Bus
 * senders (unless the developer set them). The stack trusts its certificate when it starts.
 */
export function planManagedIdentity(settings: Settings, port: number) {
  const plan = {
    port,
    endpoint: `http://127.0.0.1:${port}/msi/token`,
    /** IDENTITY_HEADER: a new random secret for every stack. */
    header: randomBytes(24).toString("base64url"),
    /** The stand-in's signing key (a private JWK) when the stack keeps its data. */
    keyFile: path.join(localDataDir(settings), "managed-identity-key.json"),
    /** Named, not read: the stack makes (or checks) the certificate when it starts. */
    certFile: localTlsFiles().certFile,
  };
  Object.assign(settings, {
    IDENTITY_PORT: String(port),
    IDENTITY_ENDPOINT: plan.endpoint,
    IDENTITY_HEADER: plan.header,
  });
  if (!isSet(settings.ENDPOINT_USER_ASSIGNED_IDENTITIES))
    settings.ENDPOINT_USER_ASSIGNED_IDENTITIES = USER_ASSIGNED_IDENTITIES.map((i) => i.resourceId).join(",");
  if (!isSet(settings.SERVICEBUS_DATA_SENDERS))
    settings.SERVICEBUS_DATA_SENDERS = LOCAL_SERVICEBUS_SENDERS.join(",");
  return plan;
}

/**
 * Who may call the local host. AUTH_MODE=keys, or an AUTH_AUTHORITY of the developer's own: no
 * local issuer. Otherwise tokens from the local issuer, with the developer as administrator;
 * settings the developer gave win.
 */
function planLocalAuth(settings: Settings, issuerPort: () => number) {
  if (settings.AUTH_MODE === "keys") return undefined;
  if (isSet(settings.AUTH_AUTHORITY) && !isLocalIssuerAuthority(settings.AUTH_AUTHORITY)) return undefined;
  const port = issuerPort();
  const authority = issuerUrl(`http://127.0.0.1:${port}`, LOCAL_TENANT_ID);
  if (!isSet(settings.AUTH_MODE)) settings.AUTH_MODE = "entra";
  settings.AUTH_AUTHORITY = authority;
  if (!isSet(settings.AUTH_AUDIENCE)) settings.AUTH_AUDIENCE = `${LOCAL_CLIENT_ID},${LOCAL_APP_ID_URI}`;
  if (!isSet(settings.AUTH_ALLOWED_TENANTS)) settings.AUTH_ALLOWED_TENANTS = LOCAL_TENANT_ID;
  if (!isSet(settings.AUTH_ADMIN_PRINCIPALS)) settings.AUTH_ADMIN_PRINCIPALS = DEVELOPER_OBJECT_ID;
  const admins = [DEVELOPER_OBJECT_ID, `${LOCAL_TENANT_ID}/${DEVELOPER_OBJECT_ID}`];
  const developerIsAdmin = settings.AUTH_ADMIN_PRINCIPALS.split(",").some((entry) =>
    admins.includes(entry.trim().toLowerCase()),
  );
  // The key file is the issuer's signing key (a private JWK), made on first start.
  return { port, authority, keyFile: issuerKeyFile(settings), developerIsAdmin };
}

/**
 * Decides, before anything starts, what runs where: a stand-in on its port for every backing
 * service not configured, and the settings the host will see (so they can be validated first).
 */
export function planStack(input: Settings) {
  const settings: Settings = { ...input };
  const used = new Map<PortVariable, number>();
  const port = (variable: PortVariable) => {
    const value = readPort(settings, variable);
    settings[variable] = String(value);
    used.set(variable, value);
    return value;
  };
  const missing = ["FUNCTION_KEY", "MASTER_KEY"].filter((name) => !isSet(settings[name]));
  if (missing.length > 0) {
    throw new StartupError(
      `${missing.join(" and ")} must be set (in local.settings.json or the environment) for the local host.`,
    );
  }
  const host = {
    url: `http://127.0.0.1:${port("PORT")}`,
    functionKey: settings.FUNCTION_KEY as string,
    masterKey: settings.MASTER_KEY as string,
  };
  // Always runs: Service Bus is a setting of each endpoint, which may point here or at a real
  // namespace. The stand-in accepts any key; this is the emulator's documented form.
  const sbPort = port("SERVICEBUS_PORT");
  const serviceBus = {
    port: sbPort,
    connectionString: `Endpoint=sb://127.0.0.1:${sbPort}/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;EntityPath=${EXAMPLE_TOPIC}`,
    tlsPort: port("SERVICEBUS_TLS_PORT"),
  };
  const identity = planManagedIdentity(settings, port("IDENTITY_PORT"));
  // The stand-in makes these at start; the README's walkthrough receives from the example one.
  settings.SERVICEBUS_SUBSCRIPTIONS = [
    settings.SERVICEBUS_SUBSCRIPTIONS,
    `${EXAMPLE_TOPIC}/${EXAMPLE_SUBSCRIPTION}`,
  ]
    .filter(isSet)
    .join(",");

  // Azurite, unless AzureWebJobsStorage (other than UseDevelopmentStorage=true) or its
  // identity-based settings point at a real account.
  const storageConfigured = Object.entries(settings).some(
    ([name, value]) =>
      isSet(value) &&
      ((name === "AzureWebJobsStorage" && !/^\s*UseDevelopmentStorage=true\s*$/i.test(value)) ||
        name.startsWith("AzureWebJobsStorage__")),
  );
  let azurite: { blobEndpoint: string; queueEndpoint: string; blobTlsEndpoint: string } | undefined;
  if (!storageConfigured) {
    const [blobPort, queuePort] = [port("AZURITE_BLOB_PORT"), port("AZURITE_QUEUE_PORT")];
    azurite = {
      blobEndpoint: `http://127.0.0.1:${blobPort}/${DEV_ACCOUNT}`,
      queueEndpoint: `http://127.0.0.1:${queuePort}/${DEV_ACCOUNT}`,
      // Blob over HTTPS with OAuth, for identity-based dead letters; localhost, not 127.0.0.1: the
      // name a client checks the certificate for, as in Azure.
      blobTlsEndpoint: `https://localhost:${port("AZURITE_BLOB_TLS_PORT")}/${DEV_ACCOUNT}`,
    };
    settings.AzureWebJobsStorage = devConnectionString(blobPort, queuePort);
  }

  // The Cosmos DB server, unless COSMOS_ENDPOINT points at a real account.
  let cosmos: { endpoint: string; snapshotFile: string } | undefined;
  if (!isSet(settings.COSMOS_ENDPOINT)) {
    const endpoint = `https://127.0.0.1:${port("COSMOS_PORT")}/`;
    cosmos = { endpoint, snapshotFile: path.join(localDataDir(settings), "cosmos-snapshot.json") };
    settings.COSMOS_ENDPOINT = endpoint;
    settings.COSMOS_KEY = COSMOS_EMULATOR_KEY;
    // The local server's certificate is self-signed; config.ts allows this for loopback only.
    settings.COSMOS_DISABLE_TLS_VERIFICATION = "true";
  }

  const issuer = planLocalAuth(settings, () => port("ISSUER_PORT"));
  // Every port the launcher is about to listen on, checked before anything starts.
  const ports = (Object.keys(DEFAULT_PORTS) as PortVariable[]).flatMap((variable) =>
    used.has(variable) ? [{ variable, port: used.get(variable) as number }] : [],
  );
  const clash = ports.find(({ port }, index) => ports.findIndex((other) => other.port === port) < index);
  const first = ports.find(({ port }) => port === clash?.port);
  if (clash && first)
    throw new StartupError(
      `${first.variable} and ${clash.variable} are both ${clash.port}; give each its own port.`,
    );

  // The stand-ins listen on loopback, so endpoints must be able to point there, unless the developer says otherwise.
  if (!isSet(settings.ALLOW_LOOPBACK_ENDPOINTS)) settings.ALLOW_LOOPBACK_ENDPOINTS = "true";
  return { settings, host, azurite, cosmos, serviceBus, identity, issuer, ports };
}
