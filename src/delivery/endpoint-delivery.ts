import type { ServiceBusMessageBatch, ServiceBusSender } from "@azure/service-bus";
import { describeError } from "../common/describe-error";
import type { DeliveryEndpoint } from "../endpoints/endpoint-service";
import type { CloudEvent } from "../events/cloud-event";
import { toServiceBusMessage } from "./service-bus-message";

/** What delivery needs of a topic's sender; a ServiceBusSender is one. */
export type TopicSender = Pick<ServiceBusSender, "createMessageBatch" | "sendMessages">;

/** Where delivery gets a sender for a connection string and topic; the SenderPool is one. */
export interface SenderSource {
  sender(connectionString: string, topic: string): TopicSender;
}

export interface EndpointDeliveryResult {
  delivered: CloudEvent[];
  failed: CloudEvent[];
  /** Why the last send failed, secrets removed; set when anything failed. */
  lastError?: string;
  /** The class of that error (its `name`, e.g. ServiceBusError), for logs; set when anything failed. */
  lastErrorName?: string;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name || error.constructor.name : typeof error;
}

/** Fills one batch from the front of `events`; returns it and how many events it took. */
async function fillBatch(
  sender: TopicSender,
  events: CloudEvent[],
): Promise<{ batch: ServiceBusMessageBatch; taken: number }> {
  const batch = await sender.createMessageBatch();
  let taken = 0;
  while (taken < events.length && batch.tryAddMessage(toServiceBusMessage(events[taken] as CloudEvent)))
    taken++;
  if (taken === 0) throw new Error(`event ${events[0]?.id} is larger than the topic's maximum message size`);
  return { batch, taken };
}

/**
 * Sends events to one endpoint's topic in as few batches as fit. Each batch goes to the primary
 * connection; when that fails, to the secondary, which is then preferred for the rest of the
 * events. Events of a batch that failed on both are reported back for a later retry, as are all
 * the events of an endpoint whose secrets this deployment cannot open.
 */
export async function deliverToEndpoint(
  pool: SenderSource,
  endpoint: DeliveryEndpoint,
  events: CloudEvent[],
): Promise<EndpointDeliveryResult> {
  if (endpoint.secrets === undefined) {
    return {
      delivered: [],
      failed: events,
      lastError: `the endpoint's secrets cannot be opened: ${endpoint.secretsUnreadable}`,
      lastErrorName: "SecretsUnreadable",
    };
  }
  const connections = [
    endpoint.secrets.queuePrimaryConnectionString,
    endpoint.secrets.queueSecondaryConnectionString,
  ];
  let preferred = 0;
  let failuresInARow = 0;
  const delivered: CloudEvent[] = [];
  let remaining = events;
  let lastError: string | undefined;
  let lastErrorName: string | undefined;
  while (remaining.length > 0) {
    try {
      const sender = pool.sender(connections[preferred] as string, endpoint.topic);
      const { batch, taken } = await fillBatch(sender, remaining);
      await sender.sendMessages(batch);
      delivered.push(...remaining.slice(0, taken));
      remaining = remaining.slice(taken);
      failuresInARow = 0;
    } catch (error) {
      lastError = describeError(error);
      lastErrorName = errorName(error);
      failuresInARow++;
      if (failuresInARow >= connections.length) break;
      preferred = (preferred + 1) % connections.length;
    }
  }
  return remaining.length === 0
    ? { delivered, failed: [] }
    : { delivered, failed: remaining, lastError, lastErrorName };
}
