import { localEnvFile, readLocalEnvFile } from "./local-env-file";
import { displayPath } from "./local-paths";
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

/** Whether anything answers HTTP at the URL (any status) within 3 s. */
export async function answersHttp(url: string): Promise<boolean> {
  try {
    await (await fetch(url, { signal: AbortSignal.timeout(3000) })).body?.cancel();
    return true;
  } catch {
    return false;
  }
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
