import { randomBytes, randomUUID } from "node:crypto";
import type { LogLevel } from "@azure/functions";
import { type QueueOverrides, startHost } from "../../dev/stack";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import type { AppConfig } from "../../src/config";
import type { Services } from "../../src/services";
import { FUNCTION_KEY, MASTER_KEY, sharedStandIns } from "./stand-ins-env";

export { FUNCTION_KEY, MASTER_KEY };
/** One throwaway encryption key per test process, so a restarted host opens what it sealed. */
export const TEST_ENCRYPTION_KEY = randomBytes(32).toString("base64");

/** Run the queue-triggered functions too, with these host.json queue settings changed. */
export type QueueTriggerOverrides = QueueOverrides;

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
  services: Services;
  logs: LogEntry[];
  /** fetch against the host with the function key (override or drop it through headers). */
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  /** Stops the host but leaves its database in place (for restart tests). */
  stop(): Promise<void>;
}

/**
 * A local host on a free port (dev/stack.ts's, in this process), serving the real route table over
 * HTTP against the shared stand-ins, with a database of its own so test files never see each
 * other's data.
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
  const logs: LogEntry[] = [];
  const triggers = options.queueTriggers;
  const host = await startHost({
    settings: appSettings,
    port: 0,
    keys: { functionKey: FUNCTION_KEY, masterKey: MASTER_KEY },
    // Quick polling and retries, so tests do not wait on production timings.
    queues: triggers
      ? {
          maxPollingIntervalMs: 250,
          visibilityTimeoutSeconds: 1,
          ...triggers,
          lockSeconds: triggers.lockSeconds ?? 10,
        }
      : false,
    createContainers: options.createContainers !== false,
    log: (level, functionName, message) => logs.push({ level, functionName, message }),
  });
  const { baseUrl, config, services } = host;
  return {
    baseUrl,
    config,
    appSettings,

    services,
    logs,
    request(path, init = {}) {
      const { key = FUNCTION_KEY, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== null && !headers.has("x-functions-key")) headers.set("x-functions-key", key);
      if (rest.body !== undefined && !headers.has("content-type"))
        headers.set("content-type", "application/json");
      return fetch(`${baseUrl}${path}`, { ...rest, headers });
    },
    stop: () => host.close(),
  };
}
