import { readHostSettings } from "../dev/host-json";
import type { HostLogger } from "../dev/host-logger";
import { startQueueTrigger } from "../dev/queue-trigger";
import { startHost } from "../dev/stack";
import { twinEventsFunction as fn } from "../src/delivery/twin-events-function";
import { serveDeliveryJobs } from "./delivery-child";

/**
 * The service's side of the delivery bench, a process of its own: the local host (startHost, its
 * HTTP idle) and per job its queue trigger as host.json sets it, running the queue function on the
 * job's queue as dev/local-host.ts wires them. The bench fills a queue, then starts the trigger,
 * which polls at once, as the Functions host's listener does on start.
 */
const log: HostLogger = (level, name, message) => {
  if (level === "warning" || level === "error" || level === "critical") console.error(`${name}: ${message}`);
};

startHost({
  settings: process.env,
  port: 0,
  keys: { functionKey: process.env.FUNCTION_KEY ?? "", masterKey: process.env.MASTER_KEY ?? "" },
  queues: false,
  createContainers: false,
  log,
}).then((host) =>
  serveDeliveryJobs(async ({ queue }) => {
    const trigger = await startQueueTrigger({
      connectionString: host.config.AzureWebJobsStorage as string,
      queueName: queue,
      functionName: fn.name,
      handler: (message, context) => fn.handler(message, context, host.services),
      settings: readHostSettings().queues,
      log,
    });
    return () => trigger.stop();
  }, host.close),
);
