import { assessmentId } from "../src/assessments/assessment-path";
import { EXAMPLE_SUBSCRIPTION, EXAMPLE_TOPIC } from "./example-topic";
import { displayPath } from "./local-paths";
import type { LocalSecretsKey } from "./local-secrets-key";
import { SAMPLE_ASSESSMENTS } from "./seed/sample-assessments";
import type { StackPlan } from "./stack-plan";

/** Quotes a value for bash (and any POSIX shell) so a printed command works when pasted. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A profile PUT that works as printed, with the local function key. */
export function curlExample(hostUrl: string, functionKey: string): string {
  const content = JSON.stringify({
    AllowDBUserOverride: "1",
    Client_ID: "ExampleClientID",
    App_ID: "example",
  });
  return [
    "curl -X PUT",
    shellQuote(`${hostUrl}/authenticationProfiles/example`),
    `-H ${shellQuote(`x-functions-key: ${functionKey}`)}`,
    `-H ${shellQuote("Content-Type: application/json")}`,
    `-d ${shellQuote(JSON.stringify({ authenticationProfileContent: content }))}`,
  ].join(" ");
}

/** A lookup of the first sample assessment (`npm run seed` loads it). */
export function assessmentLookupExample(hostUrl: string, functionKey: string): string {
  const first = SAMPLE_ASSESSMENTS[0];
  const url = first ? `${hostUrl}${assessmentId(first.path)}?api-version=2023-09-09-preview` : hostUrl;
  return ["curl", shellQuote(url), `-H ${shellQuote(`x-functions-key: ${functionKey}`)}`].join(" ");
}

const LABEL_WIDTH = 15;

function table(rows: [string, string][]): string[] {
  return rows.map(([label, value]) => `  ${label.padEnd(LABEL_WIDTH)}  ${value}`);
}

function secretsKeySource({ file, generated }: LocalSecretsKey): string {
  if (file === undefined) return "SECRETS_ENCRYPTION_KEY from the settings";
  return generated ? `generated a local key into ${file}` : `local key from ${file}`;
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
        plan.cosmos ? `${plan.cosmos.endpoint} (in memory)` : `configured (${plan.settings.COSMOS_ENDPOINT})`,
      ],
      ["Cosmos snapshot", plan.cosmos?.snapshotFile ?? "-"],
      ["Service Bus", `sb://127.0.0.1:${plan.serviceBus.port}/ (stand-in, in memory)`],
      ["Settings from", settingsFile ?? "the environment only"],
      ["Secrets key", secretsKeySource(secretsKey)],
    ]),
    "Local keys (x-functions-key header or ?code=):",
    ...table([
      ["function key", plan.host.functionKey],
      ["master key", plan.host.masterKey],
    ]),
    "For endpoints (local stand-ins; the SAS is signed with Azurite's published development key):",
    ...table([
      ["connection", plan.serviceBus.connectionString],
      ["dead letters", deadLetterUrl ?? "- (storage is configured: use a SAS URL of your own account)"],
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
    `  ${assessmentLookupExample(plan.host.url, plan.host.functionKey)}`,
    "Try:",

    `  ${curlExample(plan.host.url, plan.host.functionKey)}`,
    "",
  ].join("\n");
}
