import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { readHostSettings } from "../dev/host-json";
import { createLocalHost } from "../dev/local-host";
import { freePort } from "../dev/ports";
import { startAzurite } from "../dev/stand-ins/azurite";
import { COSMOS_EMULATOR_KEY, startCosmosServer } from "../dev/stand-ins/cosmos-server";
import { loadConfig } from "../src/config";
import { queueFunctions } from "../src/events/queue-functions";
import { routes } from "../src/http/routes";
import { createServices, disposeServices, type Services } from "../src/services";
import { ensureContainers } from "../src/store/containers";
import { type ServiceBusProcess, startServiceBusProcess } from "./service-bus-process";

export const BENCH_FUNCTION_KEY = "bench-function-key";

export interface BenchStack {
  baseUrl: string;
  serviceBus: ServiceBusProcess;
  services: Services;
  cosmosEndpoint: string;
  stop(): Promise<void>;
}

/**
 * Every component a benchmark measures, on loopback and free ports: the Cosmos server, Azurite,
 * the Service Bus stand-in and the local host with its queue trigger (as host.json sets it).
 */
export async function startBenchStack(settings: Record<string, string> = {}): Promise<BenchStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-"));
  const cosmos = await startCosmosServer(0);
  const azurite = await startAzurite({
    blobPort: await freePort(),
    queuePort: await freePort(),
    location: dataDir,
    stdio: "ignore",
  });
  // Its own process, as under `npm start`: the broker gets a core of its own, as a real one would.
  const serviceBus = await startServiceBusProcess();
  const config = loadConfig({
    COSMOS_ENDPOINT: cosmos.endpoint,
    COSMOS_KEY: COSMOS_EMULATOR_KEY,
    COSMOS_DISABLE_TLS_VERIFICATION: "true",
    COSMOS_DATABASE: `bench-${randomUUID().slice(0, 8)}`,
    AzureWebJobsStorage: azurite.connectionString,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    ENDPOINTS_PER_INSTANCE_MAX: "50",
    AUTH_PROFILE_MAX_COUNT: "100000",
    ...settings,
  });
  const services = createServices(config);
  await ensureContainers(services.cosmos, config.COSMOS_DATABASE);
  const hostSettings = readHostSettings();
  const host = createLocalHost({
    routes,
    services,
    keys: { functionKey: BENCH_FUNCTION_KEY, masterKey: `${BENCH_FUNCTION_KEY}-master` },
    routePrefix: hostSettings.routePrefix,
    queues: { functions: queueFunctions, settings: hostSettings.queues },
    log: () => undefined,
  });
  const baseUrl = await host.listen(0);
  return {
    baseUrl,
    serviceBus,
    services,
    cosmosEndpoint: cosmos.endpoint,
    async stop() {
      await host.close();
      await disposeServices(services);
      await serviceBus.close();
      await azurite.stop();
      await cosmos.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
