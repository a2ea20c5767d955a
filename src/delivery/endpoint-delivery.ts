import type { ServiceBusMessageBatch } from "@azure/service-bus";
import { describeError } from "../common/describe-error";
import type { DeliveryEndpoint } from "../endpoints/endpoint-service";
import type { CloudEvent } from "../events/cloud-event";
import { SharedBatches, type TopicSender } from "./shared-batches";

export type { TopicSender } from "./shared-batches";

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

/**
 * Sends events to one endpoint's topic in as few batches as fit: `shared`, the batches made once
 * for all of the instance's endpoints (shared-batches.ts). Each batch goes to the primary
 * connection; when that fails, to the secondary, which is then preferred for the rest of the
 * events. Events of a batch that failed on both are reported back for a later retry, as are all
 * the events of an endpoint whose secrets this deployment cannot open.
 */
export async function deliverToEndpoint(
  pool: SenderSource,
  endpoint: DeliveryEndpoint,
  events: CloudEvent[],
  shared: SharedBatches = new SharedBatches(events),
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
  let sent = 0;
  let next = 0;
  let lastError: string | undefined;
  let lastErrorName: string | undefined;
  while (sent < events.length) {
    try {
      const sender = pool.sender(connections[preferred] as string, endpoint.topic);
      const batch = (await shared.batches(sender))[next] as ServiceBusMessageBatch;
      await sender.sendMessages(batch);
      sent += batch.count;
      next++;
      failuresInARow = 0;
    } catch (error) {
      lastError = describeError(error);
      lastErrorName = errorName(error);
      failuresInARow++;
      if (failuresInARow >= connections.length) break;
      preferred = (preferred + 1) % connections.length;
    }
  }
  const delivered = sent === events.length ? events : events.slice(0, sent);
  return sent === events.length
    ? { delivered, failed: [] }
    : { delivered, failed: events.slice(sent), lastError, lastErrorName };
}
