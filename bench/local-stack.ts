import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readHostSettings } from "../dev/host-json";
import type { HostLogger } from "../dev/host-logger";
import { createLocalHost } from "../dev/local-host";
import { freePort } from "../dev/ports";
import { startAzurite } from "../dev/stand-ins/azurite";
import { COSMOS_EMULATOR_KEY } from "../dev/stand-ins/cosmos-server";
import { loadConfig } from "../src/config";
import { queueFunctions } from "../src/events/queue-functions";
import { routes } from "../src/http/routes";
import { createServices, disposeServices, type Services } from "../src/services";
import { ensureContainers } from "../src/store/containers";
import { startCosmosProcess } from "./cosmos-process";
import { type ServiceBusProcess, startServiceBusProcess } from "./service-bus-process";

export const BENCH_FUNCTION_KEY = "bench-function-key";
export const BENCH_MASTER_KEY = `${BENCH_FUNCTION_KEY}-master`;

export interface BenchStack {
  baseUrl: string;
  serviceBus: ServiceBusProcess;
  services: Services;
  cosmosEndpoint: string;
  /** Azurite's blob endpoint (path-style, account included), for dead-letter SAS URLs. */
  blobEndpoint: string;
  stop(): Promise<void>;
}

export interface BenchStackOptions {
  /** What the host and its functions log; dropped unless given (log lines would skew timings). */
  log?: HostLogger;
}

/**
 * Every component a benchmark measures, on loopback and free ports: the Cosmos server, Azurite,
 * the Service Bus stand-in and the local host with its queue trigger (as host.json sets it).
 * The host runs in this process; the Cosmos server, Azurite and the broker each run in their own,
 * as they do under `npm start` (and as a real account and namespace would be elsewhere).
 * Should a step fail, what already started is stopped again: no process outlives a failed start.
 */
export async function startBenchStack(
  settings: Record<string, string> = {},
  options: BenchStackOptions = {},
): Promise<BenchStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-"));
  // Stopped in reverse order of starting.
  const stops: (() => Promise<void> | void)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const cosmos = await startCosmosProcess();
    stops.push(() => cosmos.close());
    const azurite = await startAzurite({
      blobPort: await freePort(),
      queuePort: await freePort(),
      location: dataDir,
      stdio: "ignore",
    });
    // Azurite's processes have no IPC channel to notice this process dying; on any exit they go too.
    const killAzurite = () => {
      for (const child of azurite.processes) child.kill();
    };
    process.on("exit", killAzurite);
    stops.push(async () => {
      process.off("exit", killAzurite);
      await azurite.stop();
    });
    // Its own process, as under `npm start`: the broker gets a core of its own, as a real one would.
    const serviceBus = await startServiceBusProcess();
    stops.push(() => serviceBus.close());
    const config = loadConfig({
      COSMOS_ENDPOINT: cosmos.endpoint,
      COSMOS_KEY: COSMOS_EMULATOR_KEY,
      COSMOS_DISABLE_TLS_VERIFICATION: "true",
      COSMOS_DATABASE: `bench-${randomUUID().slice(0, 8)}`,
      AzureWebJobsStorage: azurite.connectionString,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      ENDPOINTS_PER_INSTANCE_MAX: "50",
      AUTH_PROFILE_MAX_COUNT: "100000",
      // Endpoints point at the Service Bus stand-in and Azurite, on loopback.
      ALLOW_LOOPBACK_ENDPOINTS: "true",
      ...settings,
    });
    const services = createServices(config);
    stops.push(() => disposeServices(services));
    await ensureContainers(services.cosmos, config.COSMOS_DATABASE);
    const hostSettings = readHostSettings();
    const host = createLocalHost({
      routes,
      services,
      keys: { functionKey: BENCH_FUNCTION_KEY, masterKey: BENCH_MASTER_KEY },
      routePrefix: hostSettings.routePrefix,
      queues: { functions: queueFunctions, settings: hostSettings.queues },
      log: options.log ?? (() => undefined),
    });
    stops.push(() => host.close());
    const baseUrl = await host.listen(0, "127.0.0.1");
    return {
      baseUrl,
      serviceBus,
      services,
      cosmosEndpoint: cosmos.endpoint,
      blobEndpoint: azurite.blobEndpoint,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
