import { randomUUID } from "node:crypto";
import { ServiceBusClient, type ServiceBusSender } from "@azure/service-bus";
import { toServiceBusMessage } from "../src/delivery/service-bus-message";
import type { CloudEvent } from "../src/events/cloud-event";
import { BENCH_FUNCTION_KEY, type BenchStack } from "./local-stack";

export interface DeliveryFigures {
  events: number;
  endToEndPerSecond: number;
  ceilingPerSecond: number;
  perEventBaselinePerSecond: number;
}

function makeEvents(count: number, prefix: string): CloudEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index}`,
    source: "/bench/twins",
    specversion: "1.0",
    type: "Microsoft.DigitalTwins.Twin.Update",
    time: new Date().toISOString(),
    data: {
      twinId: `twin-${index % 100}`,
      patch: [{ op: "replace", path: "/temperature", value: 20 + (index % 10) }],
    },
  }));
}

/** Counts what arrives on a new subscription of `topic` until `expected` have, and returns when. */
async function countArrivals(
  stack: BenchStack,
  topic: string,
): Promise<{ until(expected: number): Promise<number>; close(): Promise<void> }> {
  const subscription = `bench-${randomUUID().slice(0, 6)}`;
  const client = new ServiceBusClient(stack.serviceBus.connectionString());
  const receiver = client.createReceiver(topic, subscription, { receiveMode: "receiveAndDelete" });
  let received = 0;
  let receiving = true;
  // The first receive attaches the link, which creates the subscription on the stand-in.
  await receiver.receiveMessages(1, { maxWaitTimeInMs: 100 });
  // Pulls in large receives, so the subscriber is never what limits the figures.
  const loop = (async () => {
    while (receiving) {
      received += (await receiver.receiveMessages(1000, { maxWaitTimeInMs: 20 })).length;
    }
  })();
  return {
    async until(expected: number) {
      while (received < expected) await new Promise((resolve) => setTimeout(resolve, 5));
      return performance.now();
    },
    async close() {
      receiving = false;
      await loop;
      await receiver.close();
      await client.close();
    },
  };
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
  const arrivals = await countArrivals(stack, topic);
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
  const instance =
    "/subscriptions/00000000-0000-0000-0000-00000000bbbb/resourceGroups/bench/providers/Microsoft.DigitalTwins/digitalTwinsInstances/bench-twins";
  const connection = stack.serviceBus.connectionString("bench-e2e");
  const created = await fetch(`${stack.baseUrl}${instance}/endpoints/bench`, {
    method: "PUT",
    headers: { "x-functions-key": BENCH_FUNCTION_KEY, "content-type": "application/json" },
    body: JSON.stringify({
      queuePrimaryConnectionString: connection,
      queueSecondaryConnectionString: connection,
    }),
  });
  if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${await created.text()}`);

  const ingestBatch = 500;
  const events = makeEvents(count, "e2e");
  const endToEndPerSecond = await timed(stack, "bench-e2e", count, async () => {
    await Promise.all(
      Array.from({ length: Math.ceil(count / ingestBatch) }, async (_, index) => {
        const response = await fetch(`${stack.baseUrl}${instance}/events`, {
          method: "POST",
          headers: {
            "x-functions-key": BENCH_FUNCTION_KEY,
            "content-type": "application/cloudevents-batch+json",
          },
          body: JSON.stringify(events.slice(index * ingestBatch, (index + 1) * ingestBatch)),
        });
        if (response.status !== 202) throw new Error(`ingest: ${response.status}`);
      }),
    );
  });

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
