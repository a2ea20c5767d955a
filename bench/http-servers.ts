import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { freePort } from "../dev/ports";
import { waitForHealthy } from "../dev/wait-for-health";
import { processCpuMicros } from "./process-cpu";

/**
 * The two servers the HTTP benchmark compares, each a child process of the bench, so both are
 * measured the same way: the local Functions host (dev/local-host-main.ts) and the bare server
 * (bench/bare-server.ts). Their CPU time is read from /proc/<pid>/stat (user + system, every
 * thread of the process), so neither has to report on itself.
 */
export interface ServerProcess {
  name: string;
  baseUrl: string;
  pid: number;
  /** CPU time the process has used so far, in microseconds (NaN where /proc is not there). */
  cpuMicros(): number;
  stop(): Promise<void>;
}

const READY_MS = 60_000;
const STOP_MS = 10_000;

export interface SpawnOptions {
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  /** Node options for the child, such as --cpu-prof. */
  execArgv?: string[];
}

function spawnChild(options: SpawnOptions): { child: ChildProcess; ready: Promise<{ port?: number }> } {
  const child = spawn(process.execPath, [...(options.execArgv ?? []), options.script], {
    env: options.env,
    // The host logs a line a request to stdout, as under npm start; nobody reads it here.
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const ready = new Promise<{ port?: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.name} did not start`)), READY_MS);
    child.on("message", (message: { ready?: boolean; port?: number } | null) => {
      if (message?.ready !== true) return;
      clearTimeout(timer);
      resolve(message.port === undefined ? {} : { port: message.port });
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited while starting (${signal ?? code})`));
    });
  });
  return { child, ready };
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve();
        return;
      }
      // SIGTERM: a clean exit, so that a --cpu-prof profile is written.
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_MS);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill("SIGTERM");
    });
}

async function started(options: SpawnOptions, port: number | undefined): Promise<ServerProcess> {
  const { child, ready } = spawnChild(options);
  const stop = stopper(child);
  try {
    const reported = await ready;
    const listening = port ?? reported.port;
    if (listening === undefined || child.pid === undefined) throw new Error(`${options.name} has no port`);
    const pid = child.pid;
    return {
      name: options.name,
      baseUrl: `http://127.0.0.1:${listening}`,
      pid,
      cpuMicros: () => processCpuMicros(pid),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The local Functions host, built (dist/dev/local-host-main.js, or `script`: another build's, for
 * a side-by-side comparison), on a free port, with these settings.
 */
export async function startHostProcess(
  settings: NodeJS.ProcessEnv,
  execArgv: string[] = [],
  script = path.join(__dirname, "..", "dev", "local-host-main.js"),
): Promise<ServerProcess> {
  const port = await freePort();
  const server = await started(
    {
      name: "Functions host",
      script,
      env: { ...process.env, ...settings, PORT: String(port) },
      execArgv,
    },
    port,
  );
  await waitForHealthy(server.baseUrl, READY_MS).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  return server;
}

/** The bare server (dist/bench/bare-server.js, or `script`: another build's) on a free port, with these settings. */
export function startBareProcess(
  settings: NodeJS.ProcessEnv,
  execArgv: string[] = [],
  script = path.join(__dirname, "bare-server.js"),
): Promise<ServerProcess> {
  return started(
    {
      name: "bare server",
      script,
      env: { ...process.env, ...settings },
      execArgv,
    },
    undefined,
  );
}
