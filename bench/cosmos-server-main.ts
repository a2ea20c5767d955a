import { exitOnFailure, reportReady, stopOnSignal } from "../dev/child-lifecycle";
import { readPort } from "../dev/stack-plan";
import { startCosmosServer } from "../dev/stand-ins/cosmos-server";

/**
 * The in-memory Cosmos DB server for benchmarks, in a process of its own (started by
 * cosmos-process.ts) so that, as with a real account, its work does not run on the host's thread.
 * The same server as tests and `npm start` use (keep-alive, atomic batches), without the snapshots.
 */
const NAME = "Cosmos DB server (bench)";

async function main(): Promise<void> {
  const server = await startCosmosServer(readPort(process.env, "COSMOS_PORT"));
  stopOnSignal(NAME, () => server.close());
  reportReady();
}

main().catch(exitOnFailure(NAME));
