import { ServiceBusClient, type ServiceBusSender } from "@azure/service-bus";
import { toServiceBusMessage } from "../src/delivery/service-bus-message";
import type { CloudEvent } from "../src/events/cloud-event";
import { countArrivals } from "./arrivals";
import type { BenchStack } from "./local-stack";
import { benchInstance, createTopicEndpoint, ingestAll, makeEvents } from "./twin-events";

export interface DeliveryFigures {
  events: number;
  endToEndPerSecond: number;
  ceilingPerSecond: number;
  perEventBaselinePerSecond: number;
}

async function sendInBatches(sender: ServiceBusSender, events: CloudEvent[]): Promise<void> {
  let batch = await sender.createMessageBatch();
  for (const event of events) {
    const message = toServiceBusMessage(event);
    if (!batch.tryAddMessage(message)) {
      await sender.sendMessages(batch);
      batch = await sender.createMessageBatch();
      batch.tryAddMessage(message);
    }
  }
  if (batch.count > 0) await sender.sendMessages(batch);
}

async function timed(
  stack: BenchStack,
  topic: string,
  count: number,
  send: () => Promise<void>,
): Promise<number> {
  const arrivals = await countArrivals(stack.serviceBus.connectionString(), topic);
  try {
    const started = performance.now();
    await send();
    const finished = await arrivals.until(count);
    return count / ((finished - started) / 1000);
  } finally {
    await arrivals.close();
  }
}

/**
 * Events per second from ingest (HTTP) to a topic subscriber, next to the ceiling (the raw SDK
 * sending the same events in batches to the same broker and subscriber) and the baseline of one
 * send per event.
 */
export async function benchDelivery(
  stack: BenchStack,
  count: number,
  baselineCount: number,
): Promise<DeliveryFigures> {
  const instance = benchInstance("bench-twins");
  await createTopicEndpoint(stack, instance, "bench", "bench-e2e");
  const events = makeEvents(count, "e2e");
  const endToEndPerSecond = await timed(stack, "bench-e2e", count, () => ingestAll(stack, instance, events));

  const client = new ServiceBusClient(stack.serviceBus.connectionString());
  try {
    const ceilingSender = client.createSender("bench-ceiling");
    const ceilingPerSecond = await timed(stack, "bench-ceiling", count, () =>
      sendInBatches(ceilingSender, makeEvents(count, "ceiling")),
    );
    const baselineSender = client.createSender("bench-baseline");
    const perEventBaselinePerSecond = await timed(stack, "bench-baseline", baselineCount, async () => {
      for (const event of makeEvents(baselineCount, "baseline"))
        await baselineSender.sendMessages(toServiceBusMessage(event));
    });
    return { events: count, endToEndPerSecond, ceilingPerSecond, perEventBaselinePerSecond };
  } finally {
    await client.close();
  }
}
