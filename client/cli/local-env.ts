import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { CliFailure, EXIT } from "./exit-codes";

/**
 * `.local/local.env`, the file `npm start` writes for the local stack (dev/local-env-file.ts):
 * `export NAME=value` lines, values shell-quoted. Read only.
 */

/** Where the file is: `--local-env`, else `.local/local.env` under the current folder. */
export function localEnvPath(cwd: string, envFile?: string): string {
  return path.resolve(cwd, envFile ?? path.join(".local", "local.env"));
}

/** Undoes a POSIX shell's quoting as dev/summary.ts's shellQuote writes it. */
function unquote(text: string): string {
  return text.replace(/'([^']*)'?|\\(.?)|(.)/gs, (_, quoted, escaped, bare) => quoted ?? escaped ?? bare);
}

/** The values of an env file's text. */
export function parseLocalEnv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^(?:export )?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trimEnd());
    if (match?.[1] !== undefined && match[2] !== undefined) values[match[1]] = unquote(match[2]);
  }
  return values;
}

/** The file's values, or undefined when there is no file. */
export function readLocalEnv(file: string): Record<string, string> | undefined {
  return existsSync(file) ? parseLocalEnv(readFileSync(file, "utf8")) : undefined;
}

/** `--local` with no env file: no local stack has started here (exit code 1, as a stack that does not answer). */
export class LocalStackMissing extends CliFailure {
  constructor(file: string) {
    super(
      `No local stack is running: there is no ${file}, which \`npm start\` writes once the stack is up. Start it with \`npm start\` (or give --local-env <file>).`,
      EXIT.service,
      "LocalStackNotRunning",
    );
    this.name = "LocalStackMissing";
  }
}

/** The file's values and where it is; LocalStackMissing when there is none. */
export function requireLocalEnv(
  cwd: string,
  envFile: string | undefined,
): { file: string; values: Record<string, string> } {
  const file = localEnvPath(cwd, envFile);
  const values = readLocalEnv(file);
  if (values === undefined) throw new LocalStackMissing(file);
  return { file, values };
}
