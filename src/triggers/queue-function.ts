import type { InvocationContext } from "@azure/functions";
import type { AppConfig } from "../config";
import type { Services } from "../services";

/**
 * A storage-queue-triggered function, described once: functions/ registers it with
 * `app.storageQueue` and the local host's queue trigger in dev/ polls the same queue for it.
 * As with the real trigger, `message` is the decoded message: parsed JSON when it is JSON, else text.
 * Throwing makes the host retry the message, and move it to `poisonQueueName(queue)` after
 * host.json's maxDequeueCount.
 */
export type QueueHandler = (
  message: unknown,
  context: InvocationContext,
  services: Services,
) => Promise<void>;

export interface QueueFunctionDefinition {
  name: string;
  /** The queue the function is triggered by, from the settings. */
  queueName: (config: AppConfig) => string;
  /** The app setting (prefix) of the storage connection, as the binding names it. */
  connection: "AzureWebJobsStorage";
  handler: QueueHandler;
}
