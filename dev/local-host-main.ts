import { exitOnFailure, reportReady, stopOnSignal } from "./child-lifecycle";
import { batchedConsoleLogger } from "./local-host-log";
import { type RunningHost, startHost } from "./stack";
import { readPort } from "./stack-plan";
import { StartupError } from "./startup-error";

/**
 * The local Functions host as a process of its own (started by dev/stack.ts for `npm start`, or
 * run directly with the settings in the environment): the route table on 127.0.0.1:PORT with the
 * local keys, and the queue functions. The database must exist (the stack creates it first).
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
  let host: RunningHost | undefined;
  stopOnSignal(NAME, async () => {
    await host?.close();
  });
  host = await startHost({
    settings: process.env,
    port,
    keys: { functionKey, masterKey },
    queues: { lockSeconds: LOCK_SECONDS },
    createContainers: false,
    log: batchedConsoleLogger(),
  });
  console.log(`${NAME}: listening on ${host.baseUrl}`);
  reportReady();
}

main().catch(exitOnFailure(NAME));
