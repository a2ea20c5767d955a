import { spawn } from "node:child_process";
import * as path from "node:path";

/** `twin` as built (dist/, which the global setup compiles), run as a child process. */
export const CLI = path.join(__dirname, "..", "..", "dist", "client", "cli", "main.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test's environment without TWIN_*: nothing points `twin` anywhere but its arguments. */
export function cliEnvironment(): NodeJS.ProcessEnv {
  const { TWIN_FUNCTION_KEY: _key, TWIN_BASE_URL: _url, ...env } = process.env;
  return env;
}

/** Runs `twin` with the arguments in `cwd`; `seen` collects everything it printed. */
export function runTwin(
  args: string[],
  cwd: string,
  seen: string[],
  input = "",
  env = cliEnvironment(),
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => {
      seen.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}
