import { loadConfig } from "../src/config";
import { queueFunctions } from "../src/events/queue-functions";
import { routes } from "../src/http/routes";
import { createServices, disposeServices } from "../src/services";
import { exitOnFailure, reportReady, stopOnSignal } from "./child-lifecycle";
import { readHostSettings } from "./host-json";
import { consoleLogger } from "./host-logger";
import { createLocalHost } from "./local-host";
import { readPort } from "./stack-plan";
import { StartupError } from "./startup-error";

/**
 * The local Functions host as a process of its own (started by dev/start.ts, or run directly with
 * the settings in the environment): the route table on 127.0.0.1:PORT with the local keys.
 */
const NAME = "Functions host";
/**
 * A message a crashed host was processing comes back after this long (the real host: 10 min);
 * LOCAL_QUEUE_LOCK_SECONDS changes it (tests of a crash use a few seconds).
 */
const LOCK_SECONDS = Number(process.env.LOCAL_QUEUE_LOCK_SECONDS ?? 30);

async function main(): Promise<void> {
  const functionKey = process.env.FUNCTION_KEY;
  const masterKey = process.env.MASTER_KEY;
  if (!functionKey || !masterKey) {
    throw new StartupError("FUNCTION_KEY and MASTER_KEY must be set; the host does not run without keys.");
  }
  const port = readPort(process.env, "PORT");
  const services = createServices(loadConfig(process.env));
  const hostSettings = readHostSettings();
  const host = createLocalHost({
    routes,
    services,
    keys: { functionKey, masterKey },
    routePrefix: hostSettings.routePrefix,
    queues: { functions: queueFunctions, settings: hostSettings.queues, lockSeconds: LOCK_SECONDS },
    log: consoleLogger,
  });
  stopOnSignal(NAME, async () => {
    await host.close();
    await disposeServices(services);
  });
  const url = await host.listen(port).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE") {
      throw new StartupError(`Port ${port} is already in use; set PORT to another port.`);
    }
    throw error;
  });
  console.log(`${NAME}: listening on ${url}`);
  reportReady();
}

main().catch(exitOnFailure(NAME));
