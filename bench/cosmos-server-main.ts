import { createHttpsServer } from "@vercel/cosmosdb-server";
import { exitOnFailure, reportReady, stopOnSignal } from "../dev/child-lifecycle";
import { readPort } from "../dev/stack-plan";

/**
 * The in-memory Cosmos DB server for benchmarks, in a process of its own (started by
 * cosmos-process.ts) so that, as with a real account, its work does not run on the host's thread.
 *
 * Unlike dev/stand-ins/cosmos-server.ts it keeps connections alive: @vercel/cosmosdb-server
 * answers `Connection: close` unless told `keepAlive`, which makes the SDK open a new TLS
 * connection for every request; that handshake, not the service, would then be what is measured.
 */
const NAME = "Cosmos DB server (bench)";

async function main(): Promise<void> {
  const port = readPort(process.env, "COSMOS_PORT");
  const server = createHttpsServer({ keepAlive: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  stopOnSignal(NAME, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  reportReady();
}

main().catch(exitOnFailure(NAME));
