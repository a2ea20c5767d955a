import { mkdtempSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { freePort } from "../../dev/ports";
import { startAzurite } from "../../dev/stand-ins/azurite";
import { startCosmosServer } from "../../dev/stand-ins/cosmos-server";
import { buildProject } from "./build-once";
import { type SharedStandIns, STAND_INS_ENV } from "./stand-ins-env";

/**
 * Starts the stand-ins every test file shares, on free ports: the Cosmos DB server (in this
 * process) and Azurite (child processes). Each test file then isolates itself with its own
 * database and its own local host.
 */
export default async function globalSetup(): Promise<void> {
  buildProject();
  const cosmos = await startCosmosServer(0);
  const azurite = await startAzurite({
    blobPort: await freePort(),
    queuePort: await freePort(),
    location: mkdtempSync(path.join(os.tmpdir(), "azurite-test-")),
    stdio: "ignore",
  });
  const shared: SharedStandIns = {
    cosmosEndpoint: cosmos.endpoint,
    storageConnectionString: azurite.connectionString,
  };
  process.env[STAND_INS_ENV] = JSON.stringify(shared);
  (globalThis as Record<string, unknown>).__standIns = { cosmos, azurite };
}
