import { exitOnFailure, reportReady, stopOnSignal } from "./child-lifecycle";
import { localDataDir } from "./local-paths";
import { readPort } from "./stack-plan";
import { type RunningCosmosServer, startCosmosServer } from "./stand-ins/cosmos-server";
import { StartupError } from "./startup-error";

/**
 * The local Cosmos DB server, a process of its own on COSMOS_PORT. Its data is LOCAL_DATA_DIR's
 * cosmos-snapshot.json, on disk before any answer (dev/stand-ins/cosmos-snapshot.ts); with
 * LOCAL_DATA_IN_MEMORY=true nothing is read or written.
 */
const NAME = "Cosmos DB server";

async function main(): Promise<void> {
  const port = readPort(process.env, "COSMOS_PORT");
  const dir = process.env.LOCAL_DATA_IN_MEMORY === "true" ? undefined : localDataDir(process.env);
  let server: RunningCosmosServer | undefined;
  // Nothing to save on the way down: every change is on disk before it is answered.
  stopOnSignal(NAME, async () => server?.close());
  server = await startCosmosServer(port, "127.0.0.1", dir === undefined ? {} : { dataDir: dir }).catch(
    (error: Error) => {
      if (error.message.startsWith("cannot read"))
        throw new StartupError(`${error.message}; move that file away to start empty.`);
      throw error;
    },
  );
  reportReady();
}

main().catch(exitOnFailure(NAME));
