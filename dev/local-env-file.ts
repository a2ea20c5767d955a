import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { EXAMPLE_TOPIC } from "./example-topic";
import { displayPath, localDataDir } from "./local-paths";
import type { StackPlan } from "./stack-plan";
import { LOCAL_DEAD_LETTER_CONTAINER } from "./stand-ins/dead-letter-sas";
import { ENDPOINT_NO_ROLE, ENDPOINT_SENDER } from "./stand-ins/managed-identity/identities";
import { shellQuote } from "./summary";

/**
 * `.local/local.env`: what `npm start` printed, as `export` lines a POSIX shell can `source`, so
 * the README's examples work as written. It holds the local keys (which the summary prints
 * anyway) and addresses of the local stand-ins only: nothing that reaches a real account.
 */
export function localEnvFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(localDataDir(env), "local.env");
}

/**
 * Nothing listens on port 1 (only root may, and no service does by default): a connection string
 * that is admitted locally but can never deliver, for seeing an event dead-lettered.
 */
const UNREACHABLE_PORT = 1;

/**
 * The values of the file. With the local issuer: AUTH_AUTHORITY (for scripts), the developer's
 * object id and, once the issuer runs, the developer's token (a local token for the local stack
 * only, like the keys beside it). STACK_* describe the stack for the helper commands
 * (dev/running-stack.ts): the ports it took, its AUTH_MODE, its Cosmos DB database and, when it
 * runs the Cosmos DB server, that server's endpoint. They are named so that no setting reads
 * them: a shell that sourced the file and then runs `npm start` is not moved by them.
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
    UNREACHABLE_CONNECTION: plan.serviceBus.connectionString.replace(
      /^Endpoint=sb:\/\/[^/]+\//,
      `Endpoint=sb://127.0.0.1:${UNREACHABLE_PORT}/`,
    ),
    // Only when Azurite is the storage: a SAS URL of a real account is the developer's to give.
    ...(deadLetterUrl !== undefined && { DEAD_LETTER_URL: deadLetterUrl }),
    // An IdentityBased endpoint's values: the AMQPS listener, the HTTPS container (no SAS), and
    // a user-assigned identity with the sender role and one without.
    NAMESPACE_URI: `sb://localhost:${plan.serviceBus.tlsPort}/`,
    ...(plan.azurite && {
      DEAD_LETTER_CONTAINER_URI: `${plan.azurite.blobTlsEndpoint}/${LOCAL_DEAD_LETTER_CONTAINER}`,
    }),
    SENDER_IDENTITY: ENDPOINT_SENDER.resourceId,
    NO_ROLE_IDENTITY: ENDPOINT_NO_ROLE.resourceId,
    ...(plan.issuer && {
      AUTH_AUTHORITY: plan.issuer.authority,
      DEVELOPER_OBJECT_ID: plan.issuer.developerObjectId,
      ...(developerToken !== undefined && { TOKEN: developerToken }),
    }),
    STACK_PORTS: plan.ports.map(({ variable, port }) => `${variable}=${port}`).join(" "),
    STACK_AUTH_MODE: plan.settings.AUTH_MODE?.trim() || "entra",
    ...(plan.settings.COSMOS_DATABASE?.trim()
      ? { STACK_COSMOS_DATABASE: plan.settings.COSMOS_DATABASE }
      : {}),
    ...(plan.cosmos && { STACK_COSMOS_ENDPOINT: plan.cosmos.endpoint }),
  };
}

function fileText(file: string, values: Record<string, string>): string {
  const lines = Object.entries(values).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return `# Written by npm start for the local stack; load it with: source ${displayPath(file)}\n${lines.join("\n")}\n`;
}

/** Writes the file (readable by its owner only) and returns its path. */
export function writeLocalEnvFile(
  plan: StackPlan,
  deadLetterUrl: string | undefined,
  developerToken?: string,
): string {
  const file = localEnvFile(plan.settings);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, fileText(file, localEnvValues(plan, deadLetterUrl, developerToken)), { mode: 0o600 });
  return file;
}

/**
 * Changes some values of the file `npm start` wrote (`npm run token` renews TOKEN), keeping the
 * others; written aside and renamed into place, so a shell sourcing it never sees half a file.
 * Returns false when there is no file.
 */
export function updateLocalEnvFile(
  changes: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const file = localEnvFile(env);
  if (!existsSync(file)) return false;
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, fileText(file, { ...readLocalEnvFile(env), ...changes }), { mode: 0o600 });
  renameSync(aside, file);
  return true;
}

/** Undoes shellQuote: single-quoted runs, backslash escapes, bare characters. */
function unquote(text: string): string {
  let value = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "'") {
      const end = text.indexOf("'", index + 1);
      value += text.slice(index + 1, end === -1 ? text.length : end);
      index = end === -1 ? text.length : end;
    } else if (char === "\\") {
      value += text[++index] ?? "";
    } else {
      value += char;
    }
  }
  return value;
}

/** The values of the file `npm start` wrote, or {} when there is none. */
export function readLocalEnvFile(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const file = localEnvFile(env);
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const match = /^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) values[match[1]] = unquote(match[2]);
  }
  return values;
}
