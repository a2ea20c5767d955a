import { type ChildProcess, fork } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import * as path from "node:path";
import type { LogLevel } from "@azure/functions";
import type { HostSettings } from "../../dev/host-json";
import { projectRoot } from "../../dev/local-paths";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import { type AppConfig, loadConfig } from "../../src/config";
import { createServices, disposeServices, type Services } from "../../src/services";
import { ensureContainers } from "../../src/store/containers";
import { queueFunctions } from "../../src/triggers/queue-functions";
import { FUNCTION_KEY, MASTER_KEY, sharedStandIns } from "./stand-ins-env";

export { FUNCTION_KEY, MASTER_KEY };
/** One throwaway encryption key per test process, so a restarted host opens what it sealed. */
export const TEST_ENCRYPTION_KEY = randomBytes(32).toString("base64");

/** Run the queue-triggered functions too, with these host.json queue settings changed. */
export type QueueTriggerOverrides = Partial<HostSettings["queues"]> & {
  /** How long a message stays locked while its handler runs (LOCAL_QUEUE_LOCK_SECONDS); 10 s unless set. */
  lockSeconds?: number;
};

export interface LogEntry {
  level: LogLevel;
  functionName: string;
  message: string;
}

export interface TestHost {
  baseUrl: string;
  config: AppConfig;
  /** The settings the host runs with, as environment variables would carry them. */
  appSettings: Record<string, string>;
  /** Clients of the host's stores, made in this process on first use (the host's own are in its process). */
  services: Services;
  /** What the host's functions logged, as it arrives from the host process. */
  logs: LogEntry[];
  /** The host's process: a test of a crash kills it. */
  process: ChildProcess;
  /**
   * fetch against the host with the function key (override or drop it through headers); resolves
   * once what the host logged meanwhile is in `logs` too.
   */
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  /** Resolves once every line the host has logged so far is in `logs`. */
  flushLogs(): Promise<void>;
  /** Stops the host but leaves its database in place (for restart tests). */
  stop(): Promise<void>;
}

/** How long a host may take to answer its first request's readiness; it is a fault when it does not. */
const START_DEADLINE_MS = 60_000;
/** A stop waits for running handlers (the trigger's own bound, 30 s) before the process is killed. */
const STOP_DEADLINE_MS = 45_000;

const HOST_OVERRIDE = "AzureFunctionsJobHost__extensions__queues__";

/** host.json queue settings as the app settings that override them in Azure. */
function queueSettings(overrides: QueueTriggerOverrides | undefined): Record<string, string> {
  if (!overrides) {
    return Object.fromEntries(queueFunctions.map(({ name }) => [`AzureWebJobs.${name}.Disabled`, "true"]));
  }
  // Quick polling and retries, so tests do not wait on production timings.
  const { lockSeconds = 10, maxPollingIntervalMs = 250, visibilityTimeoutSeconds = 1, ...rest } = overrides;
  const span = (seconds: number) => new Date(seconds * 1000).toISOString().slice(11, 23);
  return {
    LOCAL_QUEUE_LOCK_SECONDS: String(lockSeconds),
    [`${HOST_OVERRIDE}maxPollingInterval`]: span(maxPollingIntervalMs / 1000),
    [`${HOST_OVERRIDE}visibilityTimeout`]: span(visibilityTimeoutSeconds),
    ...Object.fromEntries(
      Object.entries(rest).map(([name, value]) => [`${HOST_OVERRIDE}${name}`, String(value)]),
    ),
  };
}

const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts dist/dev/local-host-main.js; resolves with its base URL once it listens. */
function startHostProcess(
  env: Record<string, string>,
  logs: LogEntry[],
): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = fork(path.join(projectRoot(), "dist", "dev", "local-host-main.js"), [], {
    env: { ...process.env, ...env, PORT: "0", FUNCTION_KEY, MASTER_KEY, LOCAL_HOST_LOG: "ipc" },
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the host did not start within ${START_DEADLINE_MS} ms: ${stderr}`));
    }, START_DEADLINE_MS);
    child.on("message", (message: { ready?: boolean; baseUrl?: string; log?: LogEntry }) => {
      if (message.log) logs.push(message.log);
      else if (message.ready && !message.baseUrl) reject(new Error("the host reported no address"));
      if (message.ready && message.baseUrl) {
        clearTimeout(timer);
        resolve({ child, baseUrl: message.baseUrl });
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the host exited (${signal ?? code}) before it listened: ${stderr}`));
    });
  });
}

let flushes = 0;

/** Asks the host to answer after the lines it has sent; a host that has exited has sent them all. */
function flushLogs(child: ChildProcess): Promise<void> {
  if (!child.connected) return Promise.resolve();
  const id = ++flushes;
  return new Promise((resolve) => {
    const onMessage = (message: { flushed?: number }) => {
      if (message.flushed !== id) return;
      done();
    };
    const done = () => {
      child.off("message", onMessage);
      child.off("exit", done);
      resolve();
    };
    child.on("message", onMessage);
    child.once("exit", done);
    child.send({ flush: id }, (error) => error && done());
  });
}

async function stopHostProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_DEADLINE_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * A local host on a free port: the built package in a host process of its own
 * (dev/local-host-main.ts), as an instance runs it, against the shared stand-ins, with a database of
 * its own so test files never see each other's data.
 */
export async function startTestHost(
  settings: Record<string, string> = {},
  databaseId?: string,
  options: { createContainers?: boolean; queueTriggers?: QueueTriggerOverrides } = {},
): Promise<TestHost> {
  const { cosmosEndpoint, storageConnectionString } = sharedStandIns();
  const database = databaseId ?? `test-${randomUUID().slice(0, 8)}`;

  const appSettings: Record<string, string> = {
    COSMOS_ENDPOINT: cosmosEndpoint,
    COSMOS_KEY: COSMOS_EMULATOR_KEY,
    COSMOS_DISABLE_TLS_VERIFICATION: "true",
    COSMOS_DATABASE: database,
    AzureWebJobsStorage: storageConnectionString,
    // Each database gets its own event queue, so a restarted host finds the events it left.
    TWIN_EVENTS_QUEUE: `events-${database.slice(-8).toLowerCase()}`,
    SECRETS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    // Endpoints in tests point at the stand-ins, on loopback.
    ALLOW_LOOPBACK_ENDPOINTS: "true",
    // Function keys unless a test asks for Entra ID tokens.
    AUTH_MODE: "keys",
    ...settings,
  };
  const config = loadConfig(appSettings);
  let services: Services | undefined;
  const clients = () => {
    services ??= createServices(config);
    return services;
  };
  if (options.createContainers !== false) await ensureContainers(clients().cosmos, config.COSMOS_DATABASE);
  const logs: LogEntry[] = [];
  const { child, baseUrl } = await startHostProcess(
    { ...appSettings, ...queueSettings(options.queueTriggers) },
    logs,
  ).catch(async (error: unknown) => {
    if (services) await disposeServices(services);
    throw error;
  });
  return {
    baseUrl,
    config,
    appSettings,
    get services() {
      return clients();
    },
    logs,
    process: child,
    async request(path, init = {}) {
      const { key = FUNCTION_KEY, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== null && !headers.has("x-functions-key")) headers.set("x-functions-key", key);
      if (rest.body !== undefined && !headers.has("content-type"))
        headers.set("content-type", "application/json");
      const response = await fetch(`${baseUrl}${path}`, { ...rest, headers });
      await flushLogs(child);
      return response;
    },
    flushLogs: () => flushLogs(child),
    async stop() {
      await stopHostProcess(child);
      if (services) await disposeServices(services);
      services = undefined;
    },
  };
}
