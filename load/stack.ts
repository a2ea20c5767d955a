import { randomBytes, randomUUID } from "node:crypto";
import type { HostLogger } from "../dev/host-logger";
import { type RunningStack, startStack } from "../dev/stack";
import { loadConfig } from "../src/config";
import { createServices, disposeServices, type Services } from "../src/services";
import { LOAD_FUNCTION_KEY, LOAD_MASTER_KEY } from "./keys";

export type LoadStack = RunningStack & {
  /** Clients of the host's stores, in this process (the host is a process of its own). */
  services: Services;
  blobEndpoint: string;
  stop(): Promise<unknown>;
};

/**
 * The local stack under load, through dev/stack.ts on loopback and free ports: the stand-ins in
 * child processes, as real services would be elsewhere, and the host a process of its own, its
 * log lines sent here. A fresh database and a throw-away data folder.
 */
export async function startLoadStack(log: HostLogger): Promise<LoadStack> {
  const stack = await startStack(
    {
      FUNCTION_KEY: LOAD_FUNCTION_KEY,
      MASTER_KEY: LOAD_MASTER_KEY,
      COSMOS_DATABASE: `load-${randomUUID().slice(0, 8)}`,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      // Quotas above what the mix can reach: a 409 QuotaExceeded here would be noise, not load.
      AUTH_PROFILE_MAX_COUNT: "1000",
      ENDPOINTS_PER_INSTANCE_MAX: "50",
      ALLOW_LOOPBACK_ENDPOINTS: "true",
      // The load mix calls with the function and master keys (no local issuer runs).
      AUTH_MODE: "keys",
    },
    { persistent: false, host: true, hostLog: log },
  );
  const blobEndpoint = stack.plan.azurite?.blobEndpoint;
  if (blobEndpoint === undefined) {
    await stack.stop();
    throw new Error("the load stack needs Azurite");
  }
  const services = createServices(loadConfig(stack.plan.settings));
  return {
    ...stack,
    services,
    blobEndpoint,
    stop: async () => {
      await disposeServices(services);
      return stack.stop();
    },
  };
}
