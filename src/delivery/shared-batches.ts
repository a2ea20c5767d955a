import type { ServiceBusMessage, ServiceBusMessageBatch, ServiceBusSender } from "@azure/service-bus";
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

/**
 * One queue message's events as Service Bus batches, encoded once for all of the instance's
 * endpoints: adding a message to a batch encodes it (the SDK keeps the encoded bytes), and that is
 * most of what a send costs the host. A batch is only those bytes and its size limit, so each
 * endpoint's sender sends the same batches. They are made on the link of the first endpoint to
 * ask (a batch needs an open link to learn its limit); should that fail, the next endpoint to ask
 * makes them on its own link.
 */
export class SharedBatches {
  private made: Promise<ServiceBusMessageBatch[]> | undefined;

  constructor(private readonly events: readonly CloudEvent[]) {}

  async batches(sender: TopicSender): Promise<ServiceBusMessageBatch[]> {
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
    const mine = fillBatches(sender, this.events.map(toServiceBusMessage));
    this.made = mine;
    mine.catch(() => {
      if (this.made === mine) this.made = undefined;
    });
    return mine;
  }
}

async function fillBatches(
  sender: TopicSender,
  messages: readonly ServiceBusMessage[],
): Promise<ServiceBusMessageBatch[]> {
  let batch = await sender.createMessageBatch();
  const maxSizeInBytes = Math.min(batch.maxSizeInBytes, SHARED_BATCH_MAX_BYTES);
  if (batch.maxSizeInBytes > maxSizeInBytes) batch = await sender.createMessageBatch({ maxSizeInBytes });
  const batches = [batch];
  for (const message of messages) {
    if (batch.tryAddMessage(message)) continue;
    if (batch.count === 0) {
      throw new Error(`event ${message.messageId} is larger than the topic's maximum message size`);
    }
    batch = await sender.createMessageBatch({ maxSizeInBytes });
    batches.push(batch);
    if (!batch.tryAddMessage(message)) {
      throw new Error(`event ${message.messageId} is larger than the topic's maximum message size`);
    }
  }
  return batches;
}
