import { setTimeout as delay } from "node:timers/promises";
import { gunzipSync } from "node:zlib";
import type { ServiceBusMessageBatch, ServiceBusSender } from "@azure/service-bus";
import type { QueueClient } from "@azure/storage-queue";
import { toServiceBusMessage } from "../src/delivery/service-bus-message";
import type { CloudEvent } from "../src/events/cloud-event";

/**
 * The bare forwarder: the least program doing the queue function's job with the same SDKs. It
 * trusts its queue (no checks, retries or dead letters) and is given its topics (no endpoint
 * lookup): the floor the service is measured against. Receive loops in flight, 32 messages each:
 */
export const FORWARDER_RECEIVES_IN_FLIGHT = 4;

/** A message as ingest enqueues it: base64 of JSON with `events`, or `eventsGzip` (base64 of gzip of the array). */
export function decodeQueueText(text: string): { twinsInstanceId: string; events: CloudEvent[] } {
  const message = JSON.parse(Buffer.from(text, "base64").toString("utf8"));
  const zipped = message.eventsGzip;
  const events = zipped
    ? JSON.parse(gunzipSync(Buffer.from(zipped, "base64")).toString("utf8"))
    : message.events;
  return { twinsInstanceId: message.twinsInstanceId, events };
}

/** The events in as few batches as they fit, made once for every topic. */
async function batchesOf(sender: ServiceBusSender, events: CloudEvent[]): Promise<ServiceBusMessageBatch[]> {
  const batches = [await sender.createMessageBatch()];
  for (const message of events.map(toServiceBusMessage)) {
    if ((batches.at(-1) as ServiceBusMessageBatch).tryAddMessage(message)) continue;
    batches.push(await sender.createMessageBatch());
    if (!batches.at(-1)?.tryAddMessage(message))
      throw new Error(`message ${message.messageId} fits no batch`);
  }
  return batches;
}

/**
 * Receive up to 32 messages, send their events to every topic in batches (all at once), delete the
 * messages; again, in FORWARDER_RECEIVES_IN_FLIGHT loops, until `stopped` (an empty queue is polled
 * every 50 ms). Resolves once every message taken has been sent and deleted.
 */
export async function forward(queue: QueueClient, senders: ServiceBusSender[], stopped: () => boolean) {
  const loop = async () => {
    while (!stopped()) {
      const received = await queue.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 60 });
      const items = received.receivedMessageItems;
      if (items.length === 0) await delay(50);
      const events = items.flatMap((item) => decodeQueueText(item.messageText).events);
      const batches = events.length > 0 ? await batchesOf(senders[0] as ServiceBusSender, events) : [];
      await Promise.all(senders.flatMap((sender) => batches.map((batch) => sender.sendMessages(batch))));
      await Promise.all(items.map((item) => queue.deleteMessage(item.messageId, item.popReceipt)));
    }
  };
  await Promise.all(Array.from({ length: FORWARDER_RECEIVES_IN_FLIGHT }, loop));
}
