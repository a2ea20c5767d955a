import type { AppConfig } from "../src/config";
import { ensureContainers } from "../src/store/containers";
import { createCosmosClient } from "../src/store/cosmos-client";
import { StartupError } from "./startup-error";

/** Creates the database and containers the service expects, in whichever Cosmos DB is configured. */
export async function ensureDatabase(config: AppConfig): Promise<void> {
  const client = createCosmosClient(config);
  try {
    await ensureContainers(client, config.COSMOS_DATABASE);
  } catch (error) {
    const reason = ((error as Error).message ?? String(error)).split("\n")[0];
    throw new StartupError(
      `Could not create the database ${config.COSMOS_DATABASE} and its containers at ${config.COSMOS_ENDPOINT}: ${reason}`,
    );
  } finally {
    client.dispose();
  }
}
