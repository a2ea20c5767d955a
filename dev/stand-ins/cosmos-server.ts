import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { loadCosmosServerWithAtomicBatch } from "./cosmos-atomic-batch";

/** The Cosmos DB emulator's published key; the local server accepts any key, this one is conventional. */
export const COSMOS_EMULATOR_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

export interface RunningCosmosServer {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the open-source, in-memory Cosmos DB server (HTTPS, self-signed) in this process. */
export function startCosmosServer(port: number, host = "127.0.0.1"): Promise<RunningCosmosServer> {
  // keepAlive: otherwise the server answers `Connection: close` and every Cosmos call pays a new
  // TLS handshake (about a third of the throughput).
  const server: Server = loadCosmosServerWithAtomicBatch().createHttpsServer({ keepAlive: true });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const actualPort = (server.address() as AddressInfo).port;
      resolve({
        endpoint: `https://${host}:${actualPort}/`,
        port: actualPort,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
