import * as path from "node:path";
import { assessmentId } from "../src/assessments/assessment-path";
import { EXAMPLE_SUBSCRIPTION, EXAMPLE_TOPIC } from "./example-topic";
import { displayPath } from "./local-paths";
import type { LocalSecretsKey } from "./local-secrets-key";
import { SAMPLE_ASSESSMENTS } from "./seed/sample-assessments";
import type { StackPlan } from "./stack-plan";
import { LOCAL_DEAD_LETTER_CONTAINER } from "./stand-ins/dead-letter-sas";
import {
  ENDPOINT_NO_ROLE,
  ENDPOINT_SENDER,
  type LocalManagedIdentity,
  SYSTEM_ASSIGNED,
} from "./stand-ins/managed-identity/identities";

/** Quotes a value for bash (and any POSIX shell) so a printed command works when pasted. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * How an example request names its caller: the function key as printed (AUTH_MODE=keys), or a
 * bearer token from a shell variable (a token is too long to print well; `.local/local.env` sets it).
 */
export type Caller = { functionKey: string } | { tokenVariable: string };

/** The caller of the examples the summary prints: the function key under keys, $TOKEN under entra. */
export function exampleCaller(plan: StackPlan): Caller {
  return plan.settings.AUTH_MODE === "keys"
    ? { functionKey: plan.host.functionKey }
    : { tokenVariable: "TOKEN" };
}

function callerHeader(caller: Caller): string {
  return "functionKey" in caller
    ? `-H ${shellQuote(`x-functions-key: ${caller.functionKey}`)}`
    : `-H "Authorization: Bearer $${caller.tokenVariable}"`;
}

/** A profile PUT that works as printed, with the local function key (or the token in $TOKEN). */
export function curlExample(hostUrl: string, caller: Caller): string {
  const content = JSON.stringify({
    AllowDBUserOverride: "1",
    Client_ID: "ExampleClientID",
    App_ID: "example",
  });
  return [
    "curl -X PUT",
    shellQuote(`${hostUrl}/authenticationProfiles/example`),
    callerHeader(caller),
    `-H ${shellQuote("Content-Type: application/json")}`,
    `-d ${shellQuote(JSON.stringify({ authenticationProfileContent: content }))}`,
  ].join(" ");
}

/** A lookup of the first sample assessment (`npm run seed` loads it). */
export function assessmentLookupExample(hostUrl: string, caller: Caller): string {
  const first = SAMPLE_ASSESSMENTS[0];
  const url = first ? `${hostUrl}${assessmentId(first.path)}?api-version=2023-09-09-preview` : hostUrl;
  return ["curl", shellQuote(url), callerHeader(caller)].join(" ");
}

const LABEL_WIDTH = 15;

function table(rows: [string, string][]): string[] {
  return rows.map(([label, value]) => `  ${label.padEnd(LABEL_WIDTH)}  ${value}`);
}

function secretsKeySource({ file, generated, previous }: LocalSecretsKey): string {
  if (file === undefined) return "SECRETS_ENCRYPTION_KEY from the settings";
  const earlier =
    previous === 0 ? "" : ` (and ${previous} previous key${previous === 1 ? "" : "s"}, npm run rotate-key)`;
  return generated ? `generated a local key into ${file}` : `local key from ${file}${earlier}`;
}

/** Who may call, and how to get what they call with: the local keys, or tokens and where they come from. */
function callerLines(plan: StackPlan, envFile: string | undefined): string[] {
  if (plan.settings.AUTH_MODE === "keys") {
    return [
      "Local keys (AUTH_MODE=keys; x-functions-key header or ?code=):",
      ...table([
        ["function key", plan.host.functionKey],
        ["master key", plan.host.masterKey],
      ]),
    ];
  }
  const { issuer } = plan;
  if (!issuer) {
    return [
      `Callers need an Entra ID token (AUTH_MODE=entra) from ${plan.settings.AUTH_AUTHORITY} for ${plan.settings.AUTH_AUDIENCE}.`,
    ];
  }
  const tokenFile = envFile === undefined ? "" : ` in ${displayPath(envFile)}`;
  return [
    "Callers need a bearer token (AUTH_MODE=entra); the local OpenID issuer makes them:",
    ...table([
      ["issuer", issuer.authority],
      [
        "developer",
        `${issuer.developerObjectId}${issuer.developerIsAdmin ? " (Owner at /: AUTH_ADMIN_PRINCIPALS)" : ""}`,
      ],
      ["token", `TOKEN${tokenFile}, the developer's, for 8 h; renew it with \`npm run token\``],
      ["other callers", "npm run -s token -- <name> [--app] [--hours N]   (prints a token)"],
    ]),
  ];
}

function identityLine(identity: LocalManagedIdentity, role: string): [string, string] {
  const name = identity.kind === "SystemAssigned" ? '{"type":"SystemAssigned"}' : identity.resourceId;
  return [identity.kind, `${name} (principal ${identity.principalId}; ${role})`];
}

/** The values of an identity-based endpoint (PUT) that the local stand-ins serve, and the identities. */
export function identityEndpointLines(plan: StackPlan): string[] {
  return [
    "Identity-based endpoints (managed identity stand-in; AMQPS and HTTPS with the local certificate):",
    ...table([
      ["endpointUri", `sb://localhost:${plan.serviceBus.tlsPort}`],
      [
        "deadLetterUri",
        plan.azurite
          ? `https://localhost:${plan.azurite.blobTlsPort}/devstoreaccount1/${LOCAL_DEAD_LETTER_CONTAINER}`
          : "- (storage is configured: use a container of your own account)",
      ],
      identityLine(SYSTEM_ASSIGNED, "Service Bus sender"),
      identityLine(ENDPOINT_SENDER, "Service Bus sender"),
      identityLine(ENDPOINT_NO_ROLE, "no role: its sends are refused"),
      ["identity", `${plan.identity.endpoint} (certificate ${displayPath(plan.identity.certFile)})`],
    ]),
  ];
}

/** Where the local Cosmos DB server keeps its data: on disk (each write, before it is answered), or in memory only. */
function cosmosKeeping(snapshotFile: string, inMemory: boolean): string {
  return inMemory
    ? "in memory only, LOCAL_DATA_IN_MEMORY=true: gone when it stops"
    : `every write kept on disk under ${displayPath(path.dirname(snapshotFile))}/ before it is answered`;
}

/** What runs where, the local keys (local dev keys: printing them is the point) and a request to try. */
export function formatSummary(
  plan: StackPlan,
  settingsFile: string | undefined,
  secretsKey: LocalSecretsKey,
  deadLetterUrl?: string,
  envFile?: string,
): string {
  const storage = "configured (AzureWebJobsStorage)";
  return [
    "",
    "Local stack is running. Ctrl+C stops it.",
    ...table([
      ["Functions host", plan.host.url],
      ["Azurite blob", plan.azurite?.blobEndpoint ?? storage],
      ["Azurite queue", plan.azurite?.queueEndpoint ?? storage],
      ["Azurite data", plan.azurite?.dataDir ?? "-"],
      [
        "Cosmos DB",
        plan.cosmos
          ? `${plan.cosmos.endpoint} (${cosmosKeeping(plan.cosmos.snapshotFile, plan.settings.LOCAL_DATA_IN_MEMORY === "true")})`
          : `configured (${plan.settings.COSMOS_ENDPOINT})`,
      ],
      ["Cosmos snapshot", plan.cosmos?.snapshotFile ?? "-"],
      [
        "Service Bus",
        `sb://127.0.0.1:${plan.serviceBus.port}/, AMQPS sb://localhost:${plan.serviceBus.tlsPort}/ (stand-in, in memory)`,
      ],
      [
        "OpenID issuer",
        plan.issuer ? `${plan.issuer.authority} (key ${displayPath(plan.issuer.keyFile)})` : "-",
      ],
      ["Settings from", settingsFile ?? "the environment only"],
      ["Secrets key", secretsKeySource(secretsKey)],
    ]),
    ...callerLines(plan, envFile),
    "For endpoints (local stand-ins; the SAS is signed with Azurite's published development key):",
    ...table([
      ["connection", plan.serviceBus.connectionString],
      ["dead letters", deadLetterUrl ?? "- (storage is configured: use a SAS URL of your own account)"],
    ]),
    ...identityEndpointLines(plan),
    ...(envFile === undefined
      ? []
      : [
          "The README's examples read these values from a file; in another terminal:",
          `  source ${shellQuote(displayPath(envFile))}`,
        ]),
    `Events sent to topic ${EXAMPLE_TOPIC} wait in subscription ${EXAMPLE_SUBSCRIPTION}; print them as they arrive:`,
    "  npm run receive",
    "Cluster assessments: load the samples with `npm run seed`, then look one up:",
    `  ${assessmentLookupExample(plan.host.url, exampleCaller(plan))}`,
    "functionKey" in exampleCaller(plan)
      ? "Try:"
      : "Try (in a shell that sourced the file above, for $TOKEN):",
    `  ${curlExample(plan.host.url, exampleCaller(plan))}`,
    "",
  ].join("\n");
}
