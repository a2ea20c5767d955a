import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { loadCosmosServerWithAtomicBatch } from "./cosmos-atomic-batch";
import { DurableStore, type DurableStoreOptions } from "./cosmos-durable-store";
import { installStoreHooks, latestAccount } from "./cosmos-store-hooks";

/** The Cosmos DB emulator's published key; the local server accepts any key, this one is conventional. */
export const COSMOS_EMULATOR_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

export interface RunningCosmosServer {
  endpoint: string;
  port: number;
  /** With a data folder: what was restored from it at start. */
  store: DurableStore | undefined;
  /** Stops answering, then (with a data folder) folds the journal into a final snapshot. */
  close(): Promise<void>;
}

/** Without `durable`: in memory only. With it: restored from its folder, every write on disk before its answer. */
export type CosmosServerOptions = { durable?: DurableStoreOptions };

function listen(server: Server, port: number, host: string, onListening: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    // After the server's own listener (which makes its account), before any request is read.
    server.once("listening", () => {
      server.off("error", reject);
      try {
        onListening();
        resolve();
      } catch (error) {
        server.close();
        reject(error);
      }
    });
    server.listen(port, host);
  });
}

/** Starts the open-source, in-memory Cosmos DB server (HTTPS, self-signed) in this process. */
export async function startCosmosServer(
  port: number,
  host = "127.0.0.1",
  options: CosmosServerOptions = {},
): Promise<RunningCosmosServer> {
  installStoreHooks();
  const store = options.durable && (await DurableStore.open(options.durable));
  // keepAlive: otherwise the server answers `Connection: close` and every Cosmos call pays a new
  // TLS handshake (about a third of the throughput).
  const server: Server = loadCosmosServerWithAtomicBatch().createHttpsServer({ keepAlive: true });
  if (store !== undefined) server.prependListener("request", (_req, res) => store.gate(res));
  await listen(server, port, host, () => store?.restore(latestAccount()));
  const stop = () =>
    new Promise<void>((done) => {
      server.close(() => done());
      server.closeAllConnections();
    });
  try {
    await store?.settle();
  } catch (error) {
    await stop();
    throw error;
  }
  const actualPort = (server.address() as AddressInfo).port;
  return {
    endpoint: `https://${host}:${actualPort}/`,
    port: actualPort,
    store,
    close: async () => {
      await stop();
      await store?.close();
    },
  };
}
