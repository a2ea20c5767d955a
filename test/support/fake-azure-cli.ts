import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

/**
 * A stand-in for the Azure CLI, for DefaultAzureCredential offline: an `az` on PATH whose
 * `az account get-access-token --resource R` prints the token the test left for it, in the CLI's
 * JSON, and records its arguments. With AZURE_TOKEN_CREDENTIALS=AzureCliCredential the credential
 * chain asks only it (no managed-identity probe of the network). The CLI is run as a process, and
 * a Jest test's process.env does not reach the processes it starts: the code that asks for tokens
 * runs in a Node process of its own, started with `environment()`.
 */
export interface FakeAzureCli {
  /** The next answers: this token, expiring at `expiresOn` (ms since the epoch). */
  setToken(token: string, expiresOn: number): void;
  /** The argument lines it was run with, one per token asked for. */
  calls(): string[];
  /** For a process: the CLI first on PATH, and selected in DefaultAzureCredential. */
  environment(): Record<string, string>;
  remove(): void;
}

const SCRIPT = `#!/bin/sh
echo "$*" >> "$FAKE_AZ_CALLS"
cat "$FAKE_AZ_ANSWER"
`;

export function fakeAzureCli(): FakeAzureCli {
  const folder = mkdtempSync(path.join(tmpdir(), "fake-az-"));
  const answer = path.join(folder, "answer.json");
  const calls = path.join(folder, "calls.txt");
  writeFileSync(path.join(folder, "az"), SCRIPT);
  chmodSync(path.join(folder, "az"), 0o755);
  writeFileSync(calls, "");
  return {
    setToken(token, expiresOn) {
      const json = {
        accessToken: token,
        expiresOn: new Date(expiresOn).toISOString(),
        expires_on: Math.floor(expiresOn / 1000),
        tokenType: "Bearer",
      };
      writeFileSync(answer, JSON.stringify(json));
    },
    calls: () => readFileSync(calls, "utf8").split("\n").filter(Boolean),
    environment: () => ({
      PATH: `${folder}${path.delimiter}${process.env.PATH ?? ""}`,
      AZURE_TOKEN_CREDENTIALS: "AzureCliCredential",
      FAKE_AZ_ANSWER: answer,
      FAKE_AZ_CALLS: calls,
    }),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

/** Runs a CommonJS script in a Node process of its own, in `cwd`; what it wrote to stdout, parsed as JSON. */
export async function runNodeScript(
  script: string,
  cwd: string,
  environment: Record<string, string>,
): Promise<unknown> {
  const { execFile } = await import("node:child_process");
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ["-e", script],
      { cwd, env: { ...process.env, ...environment }, timeout: 60_000 },
      (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
    );
  });
  return JSON.parse(stdout);
}
