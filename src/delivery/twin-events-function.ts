import { pendingSecretsReason } from "../secrets/secret-keys";
import type { QueueFunctionDefinition } from "../triggers/queue-function";
import { anythingFailed, formatCounters } from "./delivery-counters";

/**
 * The queue-triggered function that forwards twin events to the topics of their instance's endpoints.
 * While the encryption key is pending, it defers each message instead (secrets-pending-deferral.ts):
 * delivery, which needs the key, is not even made.
 */
export const twinEventsFunction: QueueFunctionDefinition = {
  name: "twinEvents-deliver",
  queueName: (config) => config.TWIN_EVENTS_QUEUE,
  connection: "AzureWebJobsStorage",
  handler: async (message, context, services) => {
    const { config } = services;
    const pending = pendingSecretsReason(config);
    if (pending !== undefined) {
      const queue = services.queueService.getQueueClient(config.TWIN_EVENTS_QUEUE);
      const options = { reason: pending, ttlSeconds: config.DELIVERY_TTL_SECONDS, now: new Date() };
      // Only a first deployment waits for its key: the deferral (and the queue message's schemas it
      // reads with) loads then, not with the entry points.
      const { deferWhileSecretsPending } =
        require("./secrets-pending-deferral") as typeof import("./secrets-pending-deferral");
      const delay = await deferWhileSecretsPending(message, queue, options);
      context.warn(`twin events deferred: ${pending}; the message is back on ${queue.name} in ${delay} s`);
      return;
    }
    const counters = await services.delivery.handle(message, context);
    // An invocation where all went well is counted by the metrics; its summary is a debug line,
    // which host.json leaves out of Application Insights. One with a failure is a warning, always kept.
    const summary = `twin events: ${formatCounters(counters)}`;
    if (anythingFailed(counters)) context.warn(summary);
    else context.debug(summary);
  },
};
