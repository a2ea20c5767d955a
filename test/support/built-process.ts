import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");

export interface BuiltProcess {
  child: ChildProcess;
  output(): string;
  /** SIGKILL: no clean-up, as a crash. */
  kill(): Promise<void>;
  /** SIGTERM: a clean stop. */
  stop(): Promise<void>;
}

/** Once it has exited and its output pipes are closed ("close"): nothing it started holds them still. */
function exited(child: ChildProcess): Promise<void> {
  const ended = child.exitCode !== null || child.signalCode !== null;
  const released = [child.stdout, child.stderr].every((stream) => stream === null || stream.closed);
  return ended && released
    ? Promise.resolve()
    : new Promise((resolve) => child.once("close", () => resolve()));
}

/**
 * Runs a built dev/ entry point (dist/dev/…-main.js, as `npm start` runs them) as a child process
 * and resolves once it reports ready over IPC. Tests use it to kill and restart a component.
 */
export async function startBuiltProcess(script: string, env: Record<string, string>): Promise<BuiltProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, "dist", "dev", script)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) =>
      reject(new Error(`${script} exited with ${code} before it was ready:\n${output}`)),
    );
  });
  return {
    child,
    output: () => output,
    async kill() {
      child.kill("SIGKILL");
      await exited(child);
    },
    async stop() {
      child.kill("SIGTERM");
      await exited(child);
    },
  };
}
