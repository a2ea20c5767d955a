import { ServiceBusClient, type ServiceBusMessageBatch, type ServiceBusSender } from "@azure/service-bus";
import { toServiceBusMessage } from "../src/delivery/service-bus-message";
import type { CloudEvent } from "../src/events/cloud-event";
import { countArrivals } from "./arrivals";
import type { BenchStack } from "./local-stack";
import { cpuSpent, snapshotCpu } from "./process-cpu";
import { type Rounds, runRounds } from "./rounds";
import { benchInstance, createTopicEndpoint, ingestAll, makeEvents } from "./twin-events";

/** CPU milliseconds per 1,000 events, by process (process-cpu.ts), largest first. */
export type CpuPerThousand = [process: string, ms: number][];

/** One round of the delivery comparison, in events per second, with where the CPU went. */
export interface DeliveryRound {
  endToEnd: number;
  ceiling: number;
  perEvent: number;
  cpu: { endToEnd: CpuPerThousand; ceiling: CpuPerThousand };
  /** The host's thread (ingest, queue trigger, delivery), busy ms per 1,000 events end to end. */
  hostThreadMsPerThousand: number;
}

interface Timed {
  perSecond: number;
  cpu: CpuPerThousand;
  threadBusyMs: number;
}

export interface DeliverySizes {
  events: number;
  perEventEvents: number;
  rounds: number;
}

/** Batches the raw SDK keeps in flight for the ceiling: more than one, so latency does not cap it. */
const CEILING_BATCHES_IN_FLIGHT = 4;

async function sendInBatches(sender: ServiceBusSender, events: CloudEvent[]): Promise<void> {
  const batches: ServiceBusMessageBatch[] = [];
  let batch = await sender.createMessageBatch();
  for (const event of events) {
    const message = toServiceBusMessage(event);
    if (!batch.tryAddMessage(message)) {
      batches.push(batch);
      batch = await sender.createMessageBatch();
      batch.tryAddMessage(message);
    }
  }
  if (batch.count > 0) batches.push(batch);
  let next = 0;
  await Promise.all(
    Array.from({ length: CEILING_BATCHES_IN_FLIGHT }, async () => {
      while (next < batches.length) await sender.sendMessages(batches[next++] as ServiceBusMessageBatch);
    }),
  );
}

/** Events per second from the start of `send` until a fresh subscriber of `topic` has `count` messages. */
async function timed(
  stack: BenchStack,
  topic: string,
  count: number,
  send: () => Promise<void>,
): Promise<Timed> {
  const arrivals = await countArrivals(stack.serviceBus.connectionString(), topic);
  try {
    const cpuBefore = snapshotCpu();
    const busyBefore = performance.eventLoopUtilization();
    const started = performance.now();
    await send();
    const finished = await arrivals.until(count);
    const threadBusyMs = performance.eventLoopUtilization(busyBefore).active;
    const cpu = cpuSpent(cpuBefore, snapshotCpu()).map(([name, ms]): [string, number] => [
      name,
      (ms * 1000) / count,
    ]);
    return { perSecond: count / ((finished - started) / 1000), cpu, threadBusyMs };
  } finally {
    await arrivals.close();
  }
}

/**
 * End to end through the host: a fresh instance and topic, a warm-up batch delivered first (so the
 * queue trigger is polling, as under steady traffic, not waking from its idle back-off), then
 * `count` events from the first ingest request until the subscriber has them all.
 */
async function endToEnd(stack: BenchStack, round: number, count: number): Promise<Timed> {
  const instance = benchInstance(`bench-twins-${round}`);
  const topic = `bench-e2e-${round}`;
  await createTopicEndpoint(stack, instance, "bench", topic);
  await timed(stack, topic, 100, () => ingestAll(stack, instance, makeEvents(100, `warm-${round}`)));
  return timed(stack, topic, count, () => ingestAll(stack, instance, makeEvents(count, `e2e-${round}`)));
}

async function deliveryRound(stack: BenchStack, round: number, sizes: DeliverySizes): Promise<DeliveryRound> {
  const endToEndRun = await endToEnd(stack, round, sizes.events);
  const client = new ServiceBusClient(stack.serviceBus.connectionString());
  try {
    const ceilingTopic = `bench-ceiling-${round}`;
    const ceilingSender = client.createSender(ceilingTopic);
    // Opens the link first, as the host's pooled senders already are.
    await ceilingSender.sendMessages(toServiceBusMessage(makeEvents(1, `open-${round}`)[0] as CloudEvent));
    const ceiling = await timed(stack, ceilingTopic, sizes.events, () =>
      sendInBatches(ceilingSender, makeEvents(sizes.events, `ceiling-${round}`)),
    );
    const perEventTopic = `bench-per-event-${round}`;
    const perEventSender = client.createSender(perEventTopic);
    await perEventSender.sendMessages(toServiceBusMessage(makeEvents(1, `open-${round}`)[0] as CloudEvent));
    const perEvent = await timed(stack, perEventTopic, sizes.perEventEvents, async () => {
      for (const event of makeEvents(sizes.perEventEvents, `per-event-${round}`))
        await perEventSender.sendMessages(toServiceBusMessage(event));
    });
    return {
      endToEnd: endToEndRun.perSecond,
      ceiling: ceiling.perSecond,
      perEvent: perEvent.perSecond,
      cpu: { endToEnd: endToEndRun.cpu, ceiling: ceiling.cpu },
      hostThreadMsPerThousand: (endToEndRun.threadBusyMs * 1000) / sizes.events,
    };
  } finally {
    await client.close();
  }
}

/**
 * Events per second from ingest (HTTP) to a topic subscriber, next to the ceiling (the raw SDK
 * sending the same events in batches to the same broker and subscriber) and the baseline of one
 * awaited send per event, each round on fresh topics. Every Service Bus client, the host's
 * included, reaches the broker through the stack's connection strings (behind the delay relay in
 * `npm run bench`).
 */
export function benchDelivery(stack: BenchStack, sizes: DeliverySizes): Promise<Rounds<DeliveryRound>> {
  return runRounds(sizes.rounds, (round) => deliveryRound(stack, round, sizes));
}
