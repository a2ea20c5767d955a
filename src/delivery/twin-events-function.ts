import type { QueueFunctionDefinition } from "../triggers/queue-function";
import { formatCounters } from "./delivery-counters";

/** The queue-triggered function that forwards twin events to the topics of their instance's endpoints. */
export const twinEventsFunction: QueueFunctionDefinition = {
  name: "twinEvents-deliver",
  queueName: (config) => config.TWIN_EVENTS_QUEUE,
  connection: "AzureWebJobsStorage",
  handler: async (message, context, { delivery }) => {
    const counters = await delivery.handle(message, context);
    context.log(`twin events: ${formatCounters(counters)}`);
  },
};
