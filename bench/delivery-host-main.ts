import { loadFunctionApp } from "../dev/functions-worker";
import { readHostSettings } from "../dev/host-json";
import type { HostLogger } from "../dev/host-logger";
import { projectRoot } from "../dev/local-paths";
import { startQueueTrigger } from "../dev/queue-trigger";
import { twinEventsFunction as fn } from "../src/delivery/twin-events-function";
import { serveDeliveryJobs } from "./delivery-child";

/**
 * The service's side of the delivery bench, a process of its own: the built package loaded as the
 * worker loads it, and per job a queue trigger as host.json sets it invoking the registered queue
 * function on the job's queue, as dev/local-host.ts does. The bench fills a queue, then starts the
 * trigger, which polls at once, as the Functions host's listener does on start.
 */
const log: HostLogger = (level, name, message) => {
  if (level === "warning" || level === "error" || level === "critical") console.error(`${name}: ${message}`);
};

const app = loadFunctionApp(projectRoot(), {
  log: (line) => log(line.level.toLowerCase() as never, line.functionName ?? "host", line.message),
});

serveDeliveryJobs(
  async ({ queue }) => {
    const trigger = await startQueueTrigger({
      connectionString: process.env.AzureWebJobsStorage as string,
      queueName: queue,
      functionName: fn.name,
      handler: (text, metadata, invocationId) => app.invokeQueue(fn.name, text, metadata, invocationId),
      settings: readHostSettings().queues,
      log,
    });
    return () => trigger.stop();
  },
  async () => {},
);
