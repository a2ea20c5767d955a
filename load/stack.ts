import { randomBytes, randomUUID } from "node:crypto";
import type { HostLogger } from "../dev/host-logger";
import { type RunningHost, type RunningStack, startStack } from "../dev/stack";
import { LOAD_FUNCTION_KEY, LOAD_MASTER_KEY } from "./keys";

export type LoadStack = RunningStack & {
  /** The local host, in this process: the load measures it. */
  host: RunningHost;
  blobEndpoint: string;
  stop(): Promise<unknown>;
};

/**
 * The local stack under load, through dev/stack.ts on loopback and free ports: the stand-ins in
 * child processes, as real services would be elsewhere, the host in this process (load/run.ts
 * reads how busy its thread was). A fresh database and a throw-away data folder.
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
    {
      ports: "free",
      persistent: false,
      cosmos: "child",
      serviceBus: "child",
      host: "in-process",
      childOutput: "errors",
      hostLog: log,
    },
  );
  const { host, blobEndpoint } = stack;
  if (host === undefined || blobEndpoint === undefined) {
    await stack.stop();
    throw new Error("the load stack needs the in-process host and Azurite");
  }
  return { ...stack, host, blobEndpoint };
}
