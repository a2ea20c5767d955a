import { describeError } from "../common/describe-error";
import type { DeliveryEndpoint, ServiceBusTarget } from "../endpoints/delivery-endpoint";
import type { CloudEvent } from "../events/cloud-event";
import { serviceBusIdentityFault } from "./identity-faults";
import { type PreparedBatches, type Refusal, SharedBatches, type TopicSender } from "./shared-batches";

export type { TopicSender } from "./shared-batches";

/** Where delivery gets a sender for a connection string (or namespace and identity) and topic; the SenderPool is one. */
export interface SenderSource {
  sender(target: ServiceBusTarget, topic: string): TopicSender;
}

export interface EndpointDeliveryResult {
  delivered: CloudEvent[];
  failed: CloudEvent[];
  /** Events the Service Bus client refused to make a message of: never sent, never worth a retry. */
  refused: Refusal[];
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
 * for all of the instance's endpoints (shared-batches.ts). Each batch goes to the first target (a
 * KeyBased endpoint's primary connection; an IdentityBased endpoint has one); when that fails, to
 * the next, which is then preferred for the rest of the events. Events of a batch that failed on
 * every target are reported back for a later retry, as are all the events of an endpoint whose
 * secrets this deployment cannot open; events the client refused are reported apart, as they can
 * never be sent. A refusal for want of a role or a token is said as such (identity-faults.ts).
 */
export async function deliverToEndpoint(
  pool: SenderSource,
  endpoint: DeliveryEndpoint,
  events: CloudEvent[],
  shared: SharedBatches = new SharedBatches(events),
): Promise<EndpointDeliveryResult> {
  if (endpoint.sendTo === undefined) {
    return {
      delivered: [],
      failed: events,
      refused: [],
      lastError: endpoint.unusable.reason,
      lastErrorName: endpoint.unusable.code,
    };
  }
  const connections = endpoint.sendTo;
  let prepared: PreparedBatches | undefined;
  let preferred = 0;
  let failuresInARow = 0;
  let sent = 0;
  let lastError: string | undefined;
  let lastErrorName: string | undefined;
  while (prepared === undefined || prepared.batches.length > 0) {
    const target = connections[preferred] as ServiceBusTarget;
    try {
      const sender = pool.sender(target, endpoint.topic);
      prepared ??= await shared.batches(sender);
      const batch = prepared.batches[0];
      if (batch === undefined) break;
      await sender.sendMessages(batch);
      sent += batch.count;
      prepared = { ...prepared, batches: prepared.batches.slice(1) };
      failuresInARow = 0;
    } catch (error) {
      lastError = serviceBusIdentityFault(error, target, endpoint.topic) ?? describeError(error);
      lastErrorName = errorName(error);
      failuresInARow++;
      if (failuresInARow >= connections.length) break;
      preferred = (preferred + 1) % connections.length;
    }
  }
  const sendable = prepared?.sendable ?? events;
  const refused = prepared?.refused ?? [];
  return sent === sendable.length
    ? { delivered: sendable, failed: [], refused }
    : { delivered: sendable.slice(0, sent), failed: sendable.slice(sent), refused, lastError, lastErrorName };
}
