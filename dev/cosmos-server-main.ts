import { exitOnFailure, reportReady, stopOnSignal } from "./child-lifecycle";
import { displayPath, localDataDir } from "./local-paths";
import { readPort } from "./stack-plan";
import { type RunningCosmosServer, startCosmosServer } from "./stand-ins/cosmos-server";
import { StartupError } from "./startup-error";

/**
 * The local Cosmos DB server as a process of its own (started by dev/stack.ts) on COSMOS_PORT.
 * Its data lives in LOCAL_DATA_DIR: restored on start, and every write is in the journal there
 * (flushed to disk) before it is answered, so even `kill -9` loses nothing that was answered; the
 * journal is folded into the snapshot as it grows and on a clean stop.
 * LOCAL_DATA_IN_MEMORY=true (the throw-away stacks of tests, benchmarks and the load run) keeps it
 * in memory only: nothing read, nothing written.
 * COSMOS_JOURNAL_COMPACT_BYTES: the journal size that starts a compaction (default 4 MiB; tests
 * set it small to compact all the time).
 */
const NAME = "Cosmos DB server";
const IN_MEMORY = process.env.LOCAL_DATA_IN_MEMORY === "true";

function compactBytes(): number | undefined {
  const value = process.env.COSMOS_JOURNAL_COMPACT_BYTES;
  if (value === undefined || value === "") return undefined;
  const bytes = Number(value);
  if (!Number.isInteger(bytes) || bytes < 1) {
    throw new StartupError(`COSMOS_JOURNAL_COMPACT_BYTES must be a whole number of bytes, 1 or more.`);
  }
  return bytes;
}

async function start(port: number, dir: string): Promise<RunningCosmosServer> {
  const bytes = compactBytes();
  try {
    return await startCosmosServer(port, "127.0.0.1", {
      ...(!IN_MEMORY && {
        durable: {
          dir,
          ...(bytes !== undefined && { compactBytes: bytes }),
          onFailure: (error) => {
            // Changes in memory that are not on disk must never be answered: stop here.
            console.error(`${NAME}: cannot write the journal (${error.message}); stopping.`);
            process.exit(1);
          },
        },
      }),
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === "EADDRINUSE") {
      throw new StartupError(`Port ${port} is already in use; set COSMOS_PORT to another port.`);
    }
    if (message.startsWith("cannot read")) {
      throw new StartupError(`${message}; move ${displayPath(dir)} away to start empty.`);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const port = readPort(process.env, "COSMOS_PORT");
  const dir = localDataDir(process.env);
  let server: RunningCosmosServer | undefined;
  // A stop before the server is up needs nothing saved: whatever is on disk is whole at any moment.
  stopOnSignal(NAME, async () => {
    await server?.close();
    if (server?.store !== undefined) console.log(`${NAME}: data saved in ${displayPath(dir)}`);
  });
  server = await start(port, dir);
  const restored = server.store?.restored;
  if (restored !== undefined && (restored.documents > 0 || restored.records > 0)) {
    const torn = restored.tornBytes > 0 ? ` (left out a record cut short by a crash)` : "";
    console.log(
      `${NAME}: restored ${restored.documents} documents from ${displayPath(dir)}, ${restored.records} journal records${torn}`,
    );
  }
  reportReady();
}

main().catch(exitOnFailure(NAME));
