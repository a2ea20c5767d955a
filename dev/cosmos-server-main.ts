import * as https from "node:https";
import { CosmosClient } from "@azure/cosmos";
import { exitOnFailure, reportReady, stopOnSignal } from "./child-lifecycle";
import { CosmosSnapshotter } from "./cosmos-snapshotter";
import { cosmosSnapshotFile } from "./local-paths";
import { readPort } from "./stack-plan";
import { COSMOS_EMULATOR_KEY, startCosmosServer } from "./stand-ins/cosmos-server";
import { loadSnapshotFile, restoreSnapshot } from "./stand-ins/cosmos-snapshot";
import { StartupError } from "./startup-error";

/**
 * The local Cosmos DB server as a process of its own (started by dev/stack.ts): in memory on
 * COSMOS_PORT, restored from the snapshot file on start, snapshotted every 30 s and on shutdown.
 * LOCAL_DATA_IN_MEMORY=true (the throw-away stacks of benchmarks and the load run) keeps it in
 * memory only: no restore, no snapshots (whose periodic reads would skew their figures).
 */
const NAME = "Cosmos DB server";
const SNAPSHOT_INTERVAL_MS = 30_000;
const SNAPSHOTS = process.env.LOCAL_DATA_IN_MEMORY !== "true";

async function main(): Promise<void> {
  const port = readPort(process.env, "COSMOS_PORT");
  const file = cosmosSnapshotFile(process.env);
  let restored = false;
  let timer: NodeJS.Timeout | undefined;
  const starting = startCosmosServer(port).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE") {
      throw new StartupError(`Port ${port} is already in use; set COSMOS_PORT to another port.`);
    }
    throw error;
  });
  const client = new CosmosClient({
    endpoint: `https://127.0.0.1:${port}/`,
    key: COSMOS_EMULATOR_KEY,
    // The server's certificate is self-signed, and this client only ever talks to it.
    agent: new https.Agent({ rejectUnauthorized: false }),
  });
  const snapshotter = new CosmosSnapshotter(client, file);

  stopOnSignal(NAME, async () => {
    clearInterval(timer);
    const server = await starting.catch(() => undefined);
    // Before the restore finished, the store holds only part of the file: writing it would lose data.
    if (server !== undefined && restored && (await snapshotter.snapshot())) {
      console.log(`${NAME}: snapshot saved to ${file}`);
    }
    client.dispose();
    await server?.close();
  });

  await starting;
  if (!SNAPSHOTS) {
    reportReady();
    return;
  }
  const snapshot = (() => {
    try {
      return loadSnapshotFile(file);
    } catch (error) {
      throw new StartupError(
        `cannot read the snapshot ${file} (${(error as Error).message}); move it away to start empty.`,
      );
    }
  })();
  if (snapshot !== undefined) {
    const documents = await restoreSnapshot(client, snapshot);
    console.log(`${NAME}: restored ${documents} documents from ${file}`);
  }
  restored = true;
  timer = setInterval(() => {
    snapshotter
      .snapshot()
      .catch((error: Error) => console.error(`${NAME}: snapshot failed: ${error.message}`));
  }, SNAPSHOT_INTERVAL_MS);
  reportReady();
}

main().catch(exitOnFailure(NAME));
