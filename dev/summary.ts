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

/** Quotes a value for a POSIX shell so a printed command works when pasted. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** How an example names its caller: the function key (AUTH_MODE=keys), or a token in a shell variable (too long to print). */
export type Caller = { functionKey: string } | { tokenVariable: string };

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

/** A profile PUT that works as printed. */
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

function table(rows: [string, string][]): string[] {
  return rows.map(([label, value]) => `  ${label.padEnd(15)}  ${value}`);
}

function secretsKeySource({ file, generated, previous }: LocalSecretsKey): string {
  if (file === undefined) return "SECRETS_ENCRYPTION_KEY from the settings";
  if (generated) return `generated a local key into ${file}`;
  const earlier =
    previous === 0 ? "" : ` (and ${previous} previous key${previous === 1 ? "" : "s"}, npm run rotate-key)`;
  return `local key from ${file}${earlier}`;
}

/** Who may call: the local keys, or tokens and where they come from. */
function callerLines(plan: StackPlan, envFile: string | undefined): string[] {
  const { issuer, settings } = plan;
  if (settings.AUTH_MODE === "keys") {
    return [
      "Local keys (AUTH_MODE=keys; x-functions-key header or ?code=):",
      ...table([
        ["function key", plan.host.functionKey],
        ["master key", plan.host.masterKey],
      ]),
    ];
  }
  if (!issuer) {
    return [
      `Callers need an Entra ID token (AUTH_MODE=entra) from ${settings.AUTH_AUTHORITY} for ${settings.AUTH_AUDIENCE}.`,
    ];
  }
  const admin = issuer.developerIsAdmin ? " (Owner at /: AUTH_ADMIN_PRINCIPALS)" : "";
  const tokenFile = envFile === undefined ? "" : ` in ${displayPath(envFile)}`;
  return [
    "Callers need a bearer token (AUTH_MODE=entra); the local OpenID issuer makes them:",
    ...table([
      ["issuer", issuer.authority],
      ["developer", `${issuer.developerObjectId}${admin}`],
      ["token", `TOKEN${tokenFile}, the developer's, for 8 h; renew it with \`npm run token\``],
      ["other callers", "npm run -s token -- <name> [--app] [--hours N]   (prints a token)"],
    ]),
  ];
}

function identityLine(identity: LocalManagedIdentity, role: string): [string, string] {
  const name = identity.kind === "SystemAssigned" ? '{"type":"SystemAssigned"}' : identity.resourceId;
  return [identity.kind, `${name} (principal ${identity.principalId}; ${role})`];
}

/** What runs where, the local keys (local dev keys: printing them is the point) and requests to try. */
export function formatSummary(
  plan: StackPlan,
  settingsFile: string | undefined,
  secretsKey: LocalSecretsKey,
  deadLetterUrl?: string,
  envFile?: string,
): string {
  const { azurite, cosmos, serviceBus, issuer } = plan;
  const storage = "configured (AzureWebJobsStorage)";
  const keeping =
    plan.settings.LOCAL_DATA_IN_MEMORY === "true"
      ? "in memory only, LOCAL_DATA_IN_MEMORY=true: gone when it stops"
      : `every write kept on disk under ${displayPath(path.dirname(cosmos?.snapshotFile ?? ""))}/ before it is answered`;
  const caller = exampleCaller(plan);
  return [
    "",
    "Local stack is running. Ctrl+C stops it.",
    ...table([
      ["Functions host", plan.host.url],
      ["Azurite blob", azurite?.blobEndpoint ?? storage],
      ["Azurite queue", azurite?.queueEndpoint ?? storage],
      ["Azurite data", azurite?.dataDir ?? "-"],
      [
        "Cosmos DB",
        cosmos ? `${cosmos.endpoint} (${keeping})` : `configured (${plan.settings.COSMOS_ENDPOINT})`,
      ],
      ["Cosmos snapshot", cosmos?.snapshotFile ?? "-"],
      [
        "Service Bus",
        `sb://127.0.0.1:${serviceBus.port}/, AMQPS sb://localhost:${serviceBus.tlsPort}/ (stand-in, in memory)`,
      ],
      ["OpenID issuer", issuer ? `${issuer.authority} (key ${displayPath(issuer.keyFile)})` : "-"],
      ["Settings from", settingsFile ?? "the environment only"],
      ["Secrets key", secretsKeySource(secretsKey)],
    ]),
    ...callerLines(plan, envFile),
    "For endpoints (local stand-ins; the SAS is signed with Azurite's published development key):",
    ...table([
      ["connection", serviceBus.connectionString],
      ["dead letters", deadLetterUrl ?? "- (storage is configured: use a SAS URL of your own account)"],
    ]),
    "Identity-based endpoints (managed identity stand-in; AMQPS and HTTPS with the local certificate):",
    ...table([
      ["endpointUri", `sb://localhost:${serviceBus.tlsPort}`],
      [
        "deadLetterUri",
        azurite
          ? `${azurite.blobTlsEndpoint}/${LOCAL_DEAD_LETTER_CONTAINER}`
          : "- (storage is configured: use a container of your own account)",
      ],
      identityLine(SYSTEM_ASSIGNED, "Service Bus sender"),
      identityLine(ENDPOINT_SENDER, "Service Bus sender"),
      identityLine(ENDPOINT_NO_ROLE, "no role: its sends are refused"),
      ["identity", `${plan.identity.endpoint} (certificate ${displayPath(plan.identity.certFile)})`],
    ]),
    ...(envFile === undefined
      ? []
      : [
          "The README's examples read these values from a file; in another terminal:",
          `  source ${shellQuote(displayPath(envFile))}`,
        ]),
    `Events sent to topic ${EXAMPLE_TOPIC} wait in subscription ${EXAMPLE_SUBSCRIPTION}; print them as they arrive:`,
    "  npm run receive",
    "Cluster assessments: load the samples with `npm run seed`, then look one up:",
    `  ${assessmentLookupExample(plan.host.url, caller)}`,
    "functionKey" in caller ? "Try:" : "Try (in a shell that sourced the file above, for $TOKEN):",
    `  ${curlExample(plan.host.url, caller)}`,
    "",
  ].join("\n");
}
