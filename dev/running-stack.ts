import * as http from "node:http";
import { localEnvFile, readLocalEnvFile } from "./local-env-file";
import { displayPath } from "./local-paths";
import type { Settings } from "./local-settings";
import { DEFAULT_PORTS, type PortVariable } from "./stack-plan";
import { StartupError } from "./startup-error";

/**
 * The stack `npm start` runs, as it described itself in `.local/local.env`: the one place every
 * helper command (`npm run seed`, `receive`, `dead-letters`, `token`, `rotate-key`) learns the
 * ports, keys and endpoints it took. Nothing here falls back to the default ports: a stack
 * started on other ports is found through its file, and without a running stack the commands
 * refuse, saying to run `npm start`.
 */
export interface StackRecord {
  /** The file, as a command run in the repository names it. */
  file: string;
  /** Every value of the file. */
  values: Record<string, string>;
  /** The Functions host: BASE_URL. */
  baseUrl: string;
}

const HOW_TO_START =
  "Start it with `npm start` in another terminal (with the same port settings as before, if you moved any), then run this again.";

/** The refusal of every helper command when no stack runs: what is missing, and what to run. */
export function noLocalStack(reason: string): StartupError {
  return new StartupError(`${reason}\n${HOW_TO_START}`);
}

/**
 * What the file says, without asking the stack anything: for a command that also works while the
 * stack is stopped (`npm run rotate-key`). Undefined when there is no file.
 */
export function stackRecord(env: NodeJS.ProcessEnv = process.env): StackRecord | undefined {
  const values = readLocalEnvFile(env);
  const baseUrl = values.BASE_URL;
  if (baseUrl === undefined) return undefined;
  return { file: displayPath(localEnvFile(env)), values, baseUrl };
}

/** Whether anything answers HTTP at the URL (any status) within the time. */
export function answersHttp(url: string, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    let request: http.ClientRequest;
    try {
      request = http.get(url, { agent: false, timeout: timeoutMs }, (response) => {
        response.resume();
        resolve(true);
      });
    } catch {
      resolve(false);
      return;
    }
    request.once("timeout", () => request.destroy(new Error("timed out")));
    request.once("error", () => resolve(false));
  });
}

/**
 * The stack `.local/local.env` describes, once its Functions host answers (`/health`, whatever
 * its status): refuses when there is no file, or when nothing answers at its BASE_URL (the stack
 * it was written for has stopped).
 */
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

/** The ports the stack took, from STACK_PORTS (`PORT=7071 COSMOS_PORT=8081 …`). */
export function stackPorts(record: StackRecord): Partial<Record<PortVariable, number>> {
  const raw = record.values.STACK_PORTS;
  if (raw === undefined) {
    throw new StartupError(
      `${record.file} has no STACK_PORTS: an earlier version of \`npm start\` wrote it. Restart the stack (Ctrl+C, then npm start) to write it anew.`,
    );
  }
  const ports: Partial<Record<PortVariable, number>> = {};
  for (const entry of raw.split(/\s+/).filter((part) => part !== "")) {
    const [variable, port] = entry.split("=");
    if (variable !== undefined && variable in DEFAULT_PORTS && /^\d+$/.test(port ?? "")) {
      ports[variable as PortVariable] = Number(port);
    }
  }
  return ports;
}

/**
 * The developer's settings made the running stack's: its ports, keys, AUTH_MODE and Cosmos DB
 * database, and its Cosmos DB server when it runs one (else the account the settings name). What
 * `npm start` was given in its own shell then counts, not what this shell happens to hold.
 */
export function withStackSettings(record: StackRecord, settings: Settings): Settings {
  const merged: Settings = { ...settings };
  for (const [variable, port] of Object.entries(stackPorts(record))) merged[variable] = String(port);
  const { values } = record;
  for (const name of ["FUNCTION_KEY", "MASTER_KEY"] as const) {
    const value = values[name];
    if (value !== undefined) merged[name] = value;
  }
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
 * environment gives one that names a host other than loopback: a namespace or account of the
 * developer's own, used as given. A loopback value in the environment is a local stack's, maybe
 * one that has since stopped or moved (a shell that sourced an older file), so the file's wins.
 */
export async function stackOrGivenValue(
  name: string,
  hostOf: (value: string) => string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ value: string | undefined; stack: StackRecord | undefined }> {
  const given = env[name]?.trim();
  if (given) {
    const host = hostOf(given);
    if (host === undefined || !LOOPBACK_HOSTS.has(host.toLowerCase()))
      return { value: given, stack: undefined };
  }
  const stack = await runningStack(env);
  return { value: stack.values[name], stack };
}
