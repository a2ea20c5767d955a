import * as path from "node:path";
import { profileExamples } from "../src/profiles/profile-examples";
import { EXAMPLE_SUBSCRIPTION, EXAMPLE_TOPIC } from "./example-topic";
import { displayPath } from "./local-paths";
import type { LocalSecretsKey } from "./local-secrets-key";
import type { StackPlan } from "./stack-plan";
import { LOCAL_DEAD_LETTER_CONTAINER } from "./stand-ins/dead-letter-sas";
import {
  ENDPOINT_NO_ROLE,
  ENDPOINT_SENDER,
  type LocalManagedIdentity,
  SYSTEM_ASSIGNED,
} from "./stand-ins/managed-identity/identities";
import { DEVELOPER_OBJECT_ID } from "./stand-ins/openid/principals";

/** Quotes a value for a POSIX shell so a printed command works when pasted. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The header an example calls with: the function key (AUTH_MODE=keys), or $TOKEN (too long to print). */
export function exampleCallerHeader(plan: StackPlan): string {
  return plan.settings.AUTH_MODE === "keys"
    ? `-H ${shellQuote(`x-functions-key: ${plan.host.functionKey}`)}`
    : `-H "Authorization: Bearer $TOKEN"`;
}

const table = (rows: [string, string][]) => rows.map(([label, value]) => `  ${label.padEnd(15)}  ${value}`);

function secretsKeySource({ file, generated, previous }: LocalSecretsKey): string {
  if (file === undefined) return "SECRETS_ENCRYPTION_KEY from the settings";
  if (generated) return `generated a local key into ${file}`;
  const earlier =
    previous === 0 ? "" : ` (and ${previous} previous key${previous === 1 ? "" : "s"}, npm run rotate-key)`;
  return `local key from ${file}${earlier}`;
}

/** Who may call: the local keys, or tokens and where they come from. */
function callerLines({ issuer, settings, host }: StackPlan, envFile: string | undefined): string[] {
  if (settings.AUTH_MODE === "keys") {
    return [
      "Local keys (AUTH_MODE=keys; x-functions-key header or ?code=):",
      ...table([
        ["function key", host.functionKey],
        ["master key", host.masterKey],
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
      ["issuer", `${issuer.authority} (key ${displayPath(issuer.keyFile)})`],
      ["developer", `${DEVELOPER_OBJECT_ID}${admin}`],
      ["token", `TOKEN${tokenFile}, the developer's, for 8 h; \`npm run -s token -- [name]\` makes more`],
    ]),
  ];
}

function identityLine(identity: LocalManagedIdentity, role: string): [string, string] {
  const name = identity.kind === "SystemAssigned" ? '{"type":"SystemAssigned"}' : identity.resourceId;
  return [identity.kind, `${name} (principal ${identity.principalId}; ${role})`];
}

/** What runs where, the local keys (local dev keys: printing them is the point) and a request to try. */
export function formatSummary(
  plan: StackPlan,
  settingsFile: string | undefined,
  secretsKey: LocalSecretsKey,
  deadLetterUrl?: string,
  envFile?: string,
): string {
  const { azurite, cosmos, serviceBus } = plan;
  const keeping =
    plan.settings.LOCAL_DATA_IN_MEMORY === "true"
      ? "in memory only, LOCAL_DATA_IN_MEMORY=true: gone when it stops"
      : `every write kept on disk under ${displayPath(path.dirname(cosmos?.snapshotFile ?? ""))}/ before it is answered`;
  const database = cosmos
    ? `${cosmos.endpoint} (${keeping})`
    : `configured (${plan.settings.COSMOS_ENDPOINT})`;
  const profile = `${plan.host.url}/authenticationProfiles/${profileExamples.resource.id}`;
  return [
    "",
    "Local stack is running. Ctrl+C stops it.",
    ...table([
      ["Functions host", plan.host.url],
      ["Azurite", azurite ? `blob ${azurite.blobEndpoint}, queue ${azurite.queueEndpoint}` : "configured"],
      ["Cosmos DB", database],
      ["Service Bus", `sb://127.0.0.1:${serviceBus.port}/ (in memory)`],
      ["Settings from", settingsFile ?? "the environment only"],
      ["Secrets key", secretsKeySource(secretsKey)],
    ]),
    ...callerLines(plan, envFile),
    "For endpoints (local stand-ins; the SAS is signed with Azurite's published development key):",
    ...table([
      ["connection", serviceBus.connectionString],
      ["dead letters", deadLetterUrl ?? "- (storage is configured: use a SAS URL of your own account)"],
      // Identity-based endpoints: AMQPS and HTTPS with the local certificate.
      ["endpointUri", `sb://localhost:${serviceBus.tlsPort}`],
      ["deadLetterUri", azurite ? `${azurite.blobTlsEndpoint}/${LOCAL_DEAD_LETTER_CONTAINER}` : "-"],
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
    `Events sent to topic ${EXAMPLE_TOPIC} wait in subscription ${EXAMPLE_SUBSCRIPTION}: \`npm run receive\` prints them.`,
    "Sample cluster assessments: `npm run seed` loads them and prints a lookup.",
    plan.settings.AUTH_MODE === "keys" ? "Try:" : "Try (in a shell that sourced the file above, for $TOKEN):",
    `  curl -X PUT ${shellQuote(profile)} ${exampleCallerHeader(plan)} -H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(profileExamples.put))}`,
    "",
  ].join("\n");
}
