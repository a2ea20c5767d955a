import * as http from "node:http";
import { localEnvFile, readLocalEnvFile } from "./local-env-file";
import { displayPath } from "./local-paths";
import type { Settings } from "./local-settings";
import { DEFAULT_PORTS } from "./stack-plan";
import { StartupError } from "./startup-error";

/**
 * The stack `npm start` runs, as `.local/local.env` describes it: the one place the helper commands
 * learn its ports, keys and endpoints. Nothing falls back to the default ports: without a running
 * stack the commands refuse, saying to run `npm start`.
 */
export interface StackRecord {
  /** The file, as a command run in the repository names it. */
  file: string;
  values: Record<string, string>;
  /** The Functions host: BASE_URL. */
  baseUrl: string;
}

export function noLocalStack(reason: string): StartupError {
  return new StartupError(
    `${reason}\nStart it with \`npm start\` in another terminal (with the same port settings as before, if you moved any), then run this again.`,
  );
}

/** What the file says, without asking the stack (`npm run rotate-key` also works while it is stopped). */
export function stackRecord(env: NodeJS.ProcessEnv = process.env): StackRecord | undefined {
  const values = readLocalEnvFile(env);
  const baseUrl = values.BASE_URL;
  return baseUrl === undefined ? undefined : { file: displayPath(localEnvFile(env)), values, baseUrl };
}

/** Whether anything answers HTTP at the URL (any status) within the time. */
export function answersHttp(url: string, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const request = http.get(url, { agent: false, timeout: timeoutMs }, (response) => {
        response.resume();
        resolve(true);
      });
      request.once("timeout", () => request.destroy(new Error("timed out")));
      request.once("error", () => resolve(false));
    } catch {
      resolve(false);
    }
  });
}

/** The stack the file describes, once its host answers /health (any status); refuses otherwise. */
export async function runningStack(env: NodeJS.ProcessEnv = process.env): Promise<StackRecord> {
  const record = stackRecord(env);
  if (record === undefined) {
    throw noLocalStack(
      `No local stack is running: there is no ${displayPath(localEnvFile(env))}, which \`npm start\` writes once its stack is up.`,
    );
  }
  if (!(await answersHttp(`${record.baseUrl}/health`))) {
    throw noLocalStack(
      `No local stack answers at ${record.baseUrl} (BASE_URL in ${record.file}): the stack \`npm start\` wrote it for has stopped.`,
    );
  }
  return record;
}

/**
 * The developer's settings made the running stack's: its ports (STACK_PORTS), keys, AUTH_MODE,
 * Cosmos DB database and server. What `npm start` was given counts, not what this shell holds.
 */
export function withStackSettings(record: StackRecord, settings: Settings): Settings {
  const { values, file } = record;
  if (values.STACK_PORTS === undefined) {
    throw new StartupError(
      `${file} has no STACK_PORTS: an earlier version of \`npm start\` wrote it. Restart the stack (Ctrl+C, then npm start) to write it anew.`,
    );
  }
  const merged: Settings = { ...settings };
  for (const [, variable, port] of values.STACK_PORTS.matchAll(/(\w+)=(\d+)/g)) {
    if (variable !== undefined && port !== undefined && variable in DEFAULT_PORTS) merged[variable] = port;
  }
  for (const name of ["FUNCTION_KEY", "MASTER_KEY"])
    if (values[name] !== undefined) merged[name] = values[name];
  if (values.STACK_AUTH_MODE !== undefined) merged.AUTH_MODE = values.STACK_AUTH_MODE;
  if (values.STACK_COSMOS_DATABASE !== undefined) merged.COSMOS_DATABASE = values.STACK_COSMOS_DATABASE;
  else delete merged.COSMOS_DATABASE;
  if (values.STACK_COSMOS_ENDPOINT !== undefined) {
    // The stack runs the Cosmos DB server: planStack plans it again on COSMOS_PORT.
    delete merged.COSMOS_ENDPOINT;
    delete merged.COSMOS_KEY;
  }
  return merged;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/**
 * A value the running stack offers (SERVICEBUS_CONNECTION, DEAD_LETTER_URL), unless the
 * environment gives one naming a host other than loopback (the developer's own, used as given).
 * A loopback one is a local stack's, maybe one since stopped or moved, so the file's wins.
 */
export async function stackOrGivenValue(
  name: string,
  hostOf: (value: string) => string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ value: string | undefined; stack: StackRecord | undefined }> {
  const given = env[name]?.trim();
  const host = given ? hostOf(given) : undefined;
  if (given && (host === undefined || !LOOPBACK_HOSTS.has(host.toLowerCase())))
    return { value: given, stack: undefined };
  const stack = await runningStack(env);
  return { value: stack.values[name], stack };
}
