import { describeExit, exitOnFailure, reportReady, stopOnSignal } from "./child-lifecycle";
import { azuriteDataDir } from "./local-paths";
import { loadOrCreateLocalTls } from "./local-tls";
import { readPort } from "./stack-plan";
import { startAzurite } from "./stand-ins/azurite";

/**
 * Azurite's blob, queue and HTTPS blob (OAuth) services behind one supervised process: stopped on
 * SIGTERM or when the launcher vanishes; exits 1 if any of them dies. Data in LOCAL_DATA_DIR, or
 * nowhere with LOCAL_DATA_IN_MEMORY=true.
 */
const NAME = "Azurite";
const SERVICES = ["blob", "queue", "HTTPS blob"];

async function main(): Promise<void> {
  let stopping = false;
  const tls = await loadOrCreateLocalTls(); // made by the launcher: this reads it
  const starting = startAzurite({
    blobPort: readPort(process.env, "AZURITE_BLOB_PORT"),
    queuePort: readPort(process.env, "AZURITE_QUEUE_PORT"),
    blobTls: { port: readPort(process.env, "AZURITE_BLOB_TLS_PORT"), keyPairFile: tls.keyPairFile },
    ...(process.env.LOCAL_DATA_IN_MEMORY !== "true" && { location: azuriteDataDir(process.env) }),
  });
  stopOnSignal(NAME, async () => {
    stopping = true;
    // Azurite's processes exist only once it has started; stopping earlier would orphan them.
    await (await starting.catch(() => undefined))?.stop();
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
