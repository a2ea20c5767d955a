import { once } from "node:events";
import { format } from "node:util";
import { exitOnFailure, reportReady, stopOnSignal } from "./child-lifecycle";
import { loadFunctionApp } from "./functions-worker";
import { readHostSettings } from "./host-json";
import { consoleLogger, type HostLogger } from "./host-logger";
import { createHttpHost } from "./local-host";
import { projectRoot } from "./local-paths";
import { type QueueTrigger, startQueueTrigger } from "./queue-trigger";
import { StartupError } from "./startup-error";

/**
 * The local Functions host, a process of its own as an instance's host and worker are: it loads
 * the built package (package.json's `main`) as the Node.js worker does and serves it on
 * 127.0.0.1:PORT (0: a free one) with FUNCTION_KEY and MASTER_KEY, polling its queue functions'
 * queues as host.json says, changed by `AzureFunctionsJobHost__extensions__…` settings as in Azure.
 * `AzureWebJobs.<function>.Disabled=true` turns a function off, as in Azure. Started by dev/stack.ts
 * (`npm start`) and by each test's host (test/support/test-host.ts), which takes its log over IPC
 * (LOCAL_HOST_LOG=ipc). The database must exist (the stack creates it first).
 */
const NAME = "Functions host";
/**
 * A message a crashed host was processing comes back after this long (the real host: 10 min);
 * LOCAL_QUEUE_LOCK_SECONDS changes it (tests of a crash use a few seconds).
 */
const LOCK_SECONDS = Number(process.env.LOCAL_QUEUE_LOCK_SECONDS ?? 30);

/**
 * The host's log: printed, or with LOCAL_HOST_LOG=ipc sent to the parent, console output included
 * (the host keeps a worker's stdout and stderr as log lines too). A `flush` message is answered
 * after every line before it: IPC keeps order, so the parent then holds them all.
 */
function hostLog(): HostLogger {
  if (process.env.LOCAL_HOST_LOG !== "ipc" || !process.send) return consoleLogger;
  const log: HostLogger = (level, functionName, message) => {
    if (process.connected) process.send?.({ log: { level, functionName, message } }, () => {});
  };
  const levels = {
    debug: "debug",
    log: "information",
    info: "information",
    warn: "warning",
    error: "error",
  } as const;
  for (const [method, level] of Object.entries(levels)) {
    console[method as keyof typeof levels] = (...args: unknown[]) => log(level, "console", format(...args));
  }
  process.on("message", (message: { flush?: number }) => {
    if (message.flush !== undefined && process.connected)
      process.send?.({ flushed: message.flush }, () => {});
  });
  return log;
}

function port(): number {
  const raw = process.env.PORT ?? "7071";
  if (!/^\d+$/.test(raw) || Number(raw) > 65535)
    throw new StartupError("PORT must be a port number from 0 to 65535.");
  return Number(raw);
}

async function main(): Promise<void> {
  const { FUNCTION_KEY: functionKey, MASTER_KEY: masterKey } = process.env;
  if (!functionKey || !masterKey) {
    throw new StartupError("FUNCTION_KEY and MASTER_KEY must be set; the host does not run without keys.");
  }
  const log = hostLog();
  const app = loadFunctionApp(projectRoot(), {
    log: (line) => log(line.level.toLowerCase() as never, line.functionName ?? "host", line.message),
  });
  const settings = readHostSettings(undefined, process.env);
  const server = createHttpHost(app, { functionKey, masterKey }, settings.routePrefix, log);
  const triggers: QueueTrigger[] = [];
  // Running handlers finish and settle their messages; the exit that follows closes the rest.
  stopOnSignal(NAME, async () => {
    await Promise.all(triggers.map((trigger) => trigger.stop()));
  });
  server.listen(port(), "127.0.0.1");
  await once(server, "listening").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE")
      throw new StartupError(`Port ${port()} is already in use; set PORT to another port.`);
    throw error;
  });
  for (const { metadata } of app.functions.values()) {
    const binding = Object.values(metadata.bindings).find((b) => b.type === "queueTrigger");
    if (!binding?.queueName || process.env[`AzureWebJobs.${metadata.name}.Disabled`] === "true") continue;
    const connectionString = process.env[binding.connection || "AzureWebJobsStorage"];
    if (!connectionString)
      throw new Error(`${metadata.name}: the setting ${binding.connection} holds no connection string`);
    const trigger = await startQueueTrigger({
      connectionString,
      queueName: binding.queueName,
      functionName: metadata.name,
      handler: (text, triggerMetadata, invocationId) =>
        app.invokeQueue(metadata.name, text, triggerMetadata, invocationId),
      settings: settings.queues,
      lockSeconds: LOCK_SECONDS,
      log,
    });
    triggers.push(trigger);
  }
  const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  console.log(`${NAME}: listening on ${baseUrl}`);
  reportReady(baseUrl);
}

main().catch(exitOnFailure(NAME));
