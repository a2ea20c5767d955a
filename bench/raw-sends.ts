import type { ServiceBusMessageBatch, ServiceBusSender } from "@azure/service-bus";
import { toServiceBusMessage } from "../src/delivery/service-bus-message";
import type { CloudEvent } from "../src/events/cloud-event";

/** Batches the raw SDK keeps in flight per topic: more than one, so latency does not cap it. */
export const RAW_BATCHES_IN_FLIGHT = 4;

/**
 * The raw SDK's batched sends, the baseline of delivery and fan-out: the events made into batches
 * once (as the service shares its batches across endpoints), then every batch sent to every
 * sender's topic, each topic with RAW_BATCHES_IN_FLIGHT sends under way, all topics at once.
 */
export async function sendInBatches(senders: ServiceBusSender[], events: CloudEvent[]): Promise<void> {
  const first = senders[0];
  if (first === undefined) return;
  const batches: ServiceBusMessageBatch[] = [];
  let batch = await first.createMessageBatch();
  for (const event of events) {
    const message = toServiceBusMessage(event);
    if (!batch.tryAddMessage(message)) {
      batches.push(batch);
      batch = await first.createMessageBatch();
      batch.tryAddMessage(message);
    }
  }
  if (batch.count > 0) batches.push(batch);
  await Promise.all(
    senders.map(async (sender) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: RAW_BATCHES_IN_FLIGHT }, async () => {
          while (next < batches.length) await sender.sendMessages(batches[next++] as ServiceBusMessageBatch);
        }),
      );
    }),
  );
}
