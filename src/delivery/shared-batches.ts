import type { ServiceBusMessage, ServiceBusMessageBatch, ServiceBusSender } from "@azure/service-bus";
import { describeError } from "../common/describe-error";
import type { CloudEvent } from "../events/cloud-event";
import { toServiceBusMessage } from "./service-bus-message";

/** What delivery needs of a topic's sender; a ServiceBusSender is one. */
export type TopicSender = Pick<ServiceBusSender, "createMessageBatch" | "sendMessages">;

/**
 * The largest batch made: the smallest maximum message size of any Service Bus tier (Basic and
 * Standard: 256 KB; Premium allows more). A batch of at most this size fits every namespace's
 * links, so one made on one endpoint's link can be sent on any other's, primary or secondary.
 */
export const SHARED_BATCH_MAX_BYTES = 256 * 1024;

/** An event the Service Bus client will not make a message of (e.g. an id over 128 characters), and why. */
export interface Refusal {
  event: CloudEvent;
  error: string;
}

/** The events as batches, in order, and the events left out of them. */
export interface PreparedBatches {
  batches: ServiceBusMessageBatch[];
  /** The events the batches hold, in order: the message's events but the refused ones. */
  sendable: CloudEvent[];
  refused: Refusal[];
}

/**
 * One queue message's events as Service Bus batches, encoded once for all of the instance's
 * endpoints: adding a message to a batch encodes it (the SDK keeps the encoded bytes), and that is
 * most of what a send costs the host. A batch is only those bytes and its size limit, so each
 * endpoint's sender sends the same batches. They are made on the link of the first endpoint to
 * ask (a batch needs an open link to learn its limit); should that fail, the next endpoint to ask
 * makes them on its own link. An event the client refuses to add (it throws, or it does not fit
 * even an empty batch) is set aside, never sent, and does not hold up the others: that refusal is
 * the same on every link, so no retry would mend it.
 */
export class SharedBatches {
  private made: Promise<PreparedBatches> | undefined;

  constructor(private readonly events: readonly CloudEvent[]) {}

  async batches(sender: TopicSender): Promise<PreparedBatches> {
    let pending = this.made;
    while (pending !== undefined) {
      try {
        return await pending;
      } catch {
        // The link they were being made on failed. Wait for the making another endpoint has
        // started since, if any (so they are never made twice at once); else make them here.
        if (this.made === pending) this.made = undefined;
        pending = this.made;
      }
    }
    const mine = fillBatches(sender, this.events);
    this.made = mine;
    mine.catch(() => {
      if (this.made === mine) this.made = undefined;
    });
    return mine;
  }
}

/** Adds the message; false when it does not fit, an error's account when the client refuses it. */
function tryAdd(batch: ServiceBusMessageBatch, message: ServiceBusMessage): boolean | string {
  try {
    return batch.tryAddMessage(message);
  } catch (error) {
    return describeError(error);
  }
}

async function fillBatches(sender: TopicSender, events: readonly CloudEvent[]): Promise<PreparedBatches> {
  let batch = await sender.createMessageBatch();
  const maxSizeInBytes = Math.min(batch.maxSizeInBytes, SHARED_BATCH_MAX_BYTES);
  if (batch.maxSizeInBytes > maxSizeInBytes) batch = await sender.createMessageBatch({ maxSizeInBytes });
  const prepared: PreparedBatches = { batches: [batch], sendable: [], refused: [] };
  for (const event of events) {
    const message = toServiceBusMessage(event);
    let added = tryAdd(batch, message);
    if (added === false && batch.count > 0) {
      batch = await sender.createMessageBatch({ maxSizeInBytes });
      prepared.batches.push(batch);
      added = tryAdd(batch, message);
    }
    if (added === true) {
      prepared.sendable.push(event);
    } else {
      const error =
        added || `the event is larger than the topic's maximum message size (${maxSizeInBytes} bytes)`;
      prepared.refused.push({ event, error });
    }
  }
  // A batch left empty (its one event refused) is not sent.
  prepared.batches = prepared.batches.filter((each) => each.count > 0);
  return prepared;
}
