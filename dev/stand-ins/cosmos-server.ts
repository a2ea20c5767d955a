import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { loadCosmosServerWithAtomicBatch } from "./cosmos-atomic-batch";
import { CosmosSnapshot } from "./cosmos-snapshot";

/** The Cosmos DB emulator's published key; the local server accepts any key, this one is conventional. */
export const COSMOS_EMULATOR_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

export interface RunningCosmosServer {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/** Without `dataDir`: in memory only. With it: restored from there, every change on disk before an answer. */
export type CosmosServerOptions = { dataDir?: string };

/** Starts the open-source, in-memory Cosmos DB server (HTTPS, self-signed) in this process. */
export async function startCosmosServer(
  port: number,
  host = "127.0.0.1",
  options: CosmosServerOptions = {},
): Promise<RunningCosmosServer> {
  const snapshot = options.dataDir === undefined ? undefined : new CosmosSnapshot(options.dataDir);
  // keepAlive: otherwise the server answers `Connection: close` and every Cosmos call pays a new
  // TLS handshake (about a third of the throughput).
  const server: Server = loadCosmosServerWithAtomicBatch().createHttpsServer({ keepAlive: true });
  if (snapshot !== undefined) server.prependListener("request", (_req, res) => snapshot.gate(res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      snapshot?.restore();
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    endpoint: `https://${host}:${actualPort}/`,
    port: actualPort,
    // Nothing to save: every change is on disk before it is answered.
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
