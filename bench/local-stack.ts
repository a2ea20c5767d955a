import { randomBytes, randomUUID } from "node:crypto";
import type { HostLogger } from "../dev/host-logger";
import { startStack } from "../dev/stack";
import { loadConfig } from "../src/config";
import { createServices, disposeServices, type Services } from "../src/services";

export const BENCH_FUNCTION_KEY = "bench-function-key";
export const BENCH_MASTER_KEY = `${BENCH_FUNCTION_KEY}-master`;

export interface BenchStack {
  baseUrl: string;
  serviceBus: { connectionString(entityPath?: string): string };
  services: Services;
  cosmosEndpoint: string;
  /** Azurite's blob endpoint (path-style, account included), for dead-letter SAS URLs. */
  blobEndpoint: string;
  /** The settings the host runs with (ports, endpoints, keys), for another server on the same stand-ins. */
  settings: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export interface BenchStackOptions {
  /** What the host and its functions log; dropped unless given (log lines would skew timings). */
  log?: HostLogger;
}

/**
 * Every component a benchmark measures, through dev/stack.ts on loopback and free ports: the
 * Cosmos server, Azurite and the Service Bus stand-in each in a child process of its own, as under
 * `npm start` (and as a real account and namespace would be elsewhere), and the local host, a
 * process of its own loading the built package as an instance does. A fresh
 * database, a throw-away data folder, no Cosmos snapshots; no process outlives a failed start.
 */
export async function startBenchStack(
  settings: Record<string, string> = {},
  options: BenchStackOptions = {},
): Promise<BenchStack> {
  const stack = await startStack(
    {
      FUNCTION_KEY: BENCH_FUNCTION_KEY,
      MASTER_KEY: BENCH_MASTER_KEY,
      COSMOS_DATABASE: `bench-${randomUUID().slice(0, 8)}`,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      ENDPOINTS_PER_INSTANCE_MAX: "50",
      // The largest quota the service takes: the HTTP benchmark creates hundreds of profiles.
      AUTH_PROFILE_MAX_COUNT: "1000",
      // Endpoints point at the Service Bus stand-in and Azurite, on loopback.
      ALLOW_LOOPBACK_ENDPOINTS: "true",
      // The benchmarks call with the function key (no local issuer runs).
      AUTH_MODE: "keys",
      ...settings,
    },
    { persistent: false, host: true, ...(options.log && { hostLog: options.log }) },
  );
  // The bench's own clients of the stores; the host's are in its process.
  const services = createServices(loadConfig(stack.plan.settings));
  return {
    baseUrl: stack.baseUrl,
    serviceBus: { connectionString: stack.serviceBusConnectionString },
    services,
    cosmosEndpoint: stack.plan.settings.COSMOS_ENDPOINT as string,
    blobEndpoint: stack.plan.azurite?.blobEndpoint as string,
    settings: stack.plan.settings,
    stop: async () => {
      await disposeServices(services);
      await stack.stop();
    },
  };
}
