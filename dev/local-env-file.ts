import { existsSync } from "node:fs";
import * as path from "node:path";
import { readLocalEnv } from "../client/cli/local-env";
import { EXAMPLE_TOPIC } from "./example-topic";
import { displayPath, localDataDir, writeWhole } from "./local-paths";
import type { StackPlan } from "./stack-plan";
import { LOCAL_DEAD_LETTER_CONTAINER } from "./stand-ins/dead-letter-sas";
import { localContainerSasUrl, localQueueServiceSasUrl } from "./stand-ins/local-storage-sas";
import { ENDPOINT_NO_ROLE, ENDPOINT_SENDER } from "./stand-ins/managed-identity/identities";
import { DEVELOPER_OBJECT_ID } from "./stand-ins/openid/principals";
import { shellQuote } from "./summary";

/**
 * `.local/local.env`: what `npm start` printed, as `export` lines a POSIX shell can `source`, so the
 * README's examples work as written. Local keys and local stand-ins' addresses only.
 */
export function localEnvFile(env: NodeJS.ProcessEnv): string {
  return path.join(localDataDir(env), "local.env");
}

/**
 * The file's values. STACK_* describe the stack for the helper commands (dev/running-stack.ts):
 * named so that no setting reads them, so a shell that sourced the file is not moved by them.
 */
export function localEnvValues(
  plan: StackPlan,
  deadLetterUrl: string | undefined,
  developerToken?: string,
): Record<string, string> {
  return {
    BASE_URL: plan.host.url,
    FUNCTION_KEY: plan.host.functionKey,
    MASTER_KEY: plan.host.masterKey,
    EXAMPLE_TOPIC,
    SERVICEBUS_CONNECTION: plan.serviceBus.connectionString,
    // Nothing listens on port 1: admitted locally, never delivers (for seeing a dead letter).
    UNREACHABLE_CONNECTION: plan.serviceBus.connectionString.replace(
      /^Endpoint=sb:\/\/[^/]+\//,
      "Endpoint=sb://127.0.0.1:1/",
    ),
    ...(deadLetterUrl !== undefined && { DEAD_LETTER_URL: deadLetterUrl }),
    // An IdentityBased endpoint's values.
    NAMESPACE_URI: `sb://localhost:${plan.serviceBus.tlsPort}/`,
    ...(plan.azurite && {
      DEAD_LETTER_CONTAINER_URI: `${plan.azurite.blobTlsEndpoint}/${LOCAL_DEAD_LETTER_CONTAINER}`,
      // What `twin --local` reads the dead letters and the poison queue with (SAS URLs).
      IDENTITY_DEAD_LETTER_URL: localContainerSasUrl(
        `${plan.azurite.blobTlsEndpoint}/${LOCAL_DEAD_LETTER_CONTAINER}`,
      ),
      QUEUE_SERVICE_URL: localQueueServiceSasUrl(plan.azurite.queueEndpoint),
      STACK_EVENTS_QUEUE: plan.settings.TWIN_EVENTS_QUEUE?.trim() || "twin-events",
      STACK_TLS_CERT_FILE: plan.identity.certFile,
    }),
    SENDER_IDENTITY: ENDPOINT_SENDER.resourceId,
    NO_ROLE_IDENTITY: ENDPOINT_NO_ROLE.resourceId,
    ...(plan.issuer && {
      AUTH_AUTHORITY: plan.issuer.authority,
      DEVELOPER_OBJECT_ID,
      ...(developerToken !== undefined && { TOKEN: developerToken }),
    }),
    STACK_PORTS: plan.ports.map(({ variable, port }) => `${variable}=${port}`).join(" "),
    STACK_AUTH_MODE: plan.settings.AUTH_MODE?.trim() || "entra",
    ...(plan.settings.COSMOS_DATABASE?.trim() && { STACK_COSMOS_DATABASE: plan.settings.COSMOS_DATABASE }),
    ...(plan.cosmos && { STACK_COSMOS_ENDPOINT: plan.cosmos.endpoint }),
  };
}

function writeFile(file: string, values: Record<string, string>): string {
  const lines = Object.entries(values).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  const header = `# Written by npm start for the local stack; load it with: source ${displayPath(file)}`;
  writeWhole(file, `${header}\n${lines.join("\n")}\n`);
  return file;
}

export function writeLocalEnvFile(
  plan: StackPlan,
  deadLetterUrl: string | undefined,
  developerToken?: string,
): string {
  return writeFile(localEnvFile(plan.settings), localEnvValues(plan, deadLetterUrl, developerToken));
}

/** Changes some values (`npm run token` renews TOKEN), keeping the others; false when there is no file. */
export function updateLocalEnvFile(changes: Record<string, string>, env: NodeJS.ProcessEnv): boolean {
  const file = localEnvFile(env);
  if (!existsSync(file)) return false;
  writeFile(file, { ...readLocalEnvFile(env), ...changes });
  return true;
}

/** The values of the file `npm start` wrote, or {} when there is none. */
export function readLocalEnvFile(env: NodeJS.ProcessEnv): Record<string, string> {
  return readLocalEnv(localEnvFile(env)) ?? {};
}
