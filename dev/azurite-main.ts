import { exitOnFailure, reportReady, stopOnSignal } from "./child-lifecycle";
import { azuriteDataDir } from "./local-paths";
import { loadOrCreateLocalTls } from "./local-tls";
import { readPort } from "./stack-plan";
import { startAzurite } from "./stand-ins/azurite";
import { describeExit } from "./supervisor";

/**
 * Azurite's blob and queue services, and blob over HTTPS with OAuth, behind one process the launcher supervises: it stops them on
 * SIGTERM or when the launcher vanishes, and exits 1 if any of them dies. Their data goes to
 * LOCAL_DATA_DIR, or nowhere with LOCAL_DATA_IN_MEMORY=true (the throw-away stacks of tests,
 * benchmarks and the load run, which then leave nothing behind however they end).
 */
const NAME = "Azurite";
const SERVICES = ["blob", "queue", "HTTPS blob"];

async function main(): Promise<void> {
  let stopping = false;
  // The launcher made the certificate before starting this process: this reads it.
  const tls = await loadOrCreateLocalTls();
  const starting = startAzurite({
    blobPort: readPort(process.env, "AZURITE_BLOB_PORT"),
    queuePort: readPort(process.env, "AZURITE_QUEUE_PORT"),
    blobTls: { port: readPort(process.env, "AZURITE_BLOB_TLS_PORT"), keyPairFile: tls.keyPairFile },
    ...(process.env.LOCAL_DATA_IN_MEMORY !== "true" && { location: azuriteDataDir(process.env) }),
    stdio: "inherit",
  });
  stopOnSignal(NAME, async () => {
    stopping = true;
    // Azurite's own processes exist only once it has started; stopping earlier would orphan them.
    const azurite = await starting.catch(() => undefined);
    await azurite?.stop();
  });

  const azurite = await starting;
  for (const [index, service] of azurite.processes.entries()) {
    service.once("exit", (code, signal) => {
      if (stopping) return;
      stopping = true;
      console.error(
        `${NAME}: the ${SERVICES[index] ?? "blob"} service exited (${describeExit(code, signal)}).`,
      );
      void azurite.stop().finally(() => process.exit(1));
    });
  }
  reportReady();
}

main().catch(exitOnFailure(NAME));
