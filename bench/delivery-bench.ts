import { ServiceBusClient, type ServiceBusSender } from "@azure/service-bus";
import { toServiceBusMessage } from "../src/delivery/service-bus-message";
import type { CloudEvent } from "../src/events/cloud-event";
import { countArrivals } from "./arrivals";
import type { IngestShape } from "./bench-events";
import type { IngestDriver } from "./ingest-driver";
import type { BenchStack } from "./local-stack";
import { stackPids } from "./process-cpu";
import { sendInBatches } from "./raw-sends";
import { type Rounds, runRounds } from "./rounds";
import { profiledRun } from "./run-profile";
import { type TimedRun, timedRun } from "./timed-run";
import { benchInstance, createTopicEndpoint, makeEvents } from "./twin-events";

export type { CpuPerThousand } from "./timed-run";

/** One round of the delivery comparison: each path's run, same events, same subscriber kind. */
export interface DeliveryRound {
  endToEnd: TimedRun;
  ceiling: TimedRun;
  perEvent: TimedRun;
}

export interface DeliverySizes {
  events: number;
  perEventEvents: number;
  shape: IngestShape;
  rounds: number;
}

/** What a bench part drives the stack with: the stack, and the ingest client in its own process. */
export interface BenchDrive {
  stack: BenchStack;
  driver: IngestDriver;
}

/** `send` timed until a fresh subscriber of `topic` has `count` messages. */
async function timedToTopic(
  stack: BenchStack,
  topic: string,
  count: number,
  send: () => Promise<void>,
): Promise<TimedRun> {
  const arrivals = await countArrivals(stack.serviceBus.connectionString(), topic);
  try {
    return await timedRun([arrivals], count, count, send);
  } finally {
    await arrivals.close();
  }
}

/**
 * End to end through the host: a fresh instance, topic and subscriber; a warm-up request delivered
 * first and the timed part started as soon as it has arrived (so the queue trigger is polling, as
 * under steady traffic, not asleep in its idle back-off of up to maxPollingInterval), then `count`
 * events posted by the driver in the shape until the subscriber has them all. The driver
 * makes the events before the timed part, as the raw SDK's are made before its run.
 */
async function endToEnd(drive: BenchDrive, round: number, sizes: DeliverySizes): Promise<TimedRun> {
  const { stack, driver } = drive;
  const instance = benchInstance(`bench-twins-${round}`);
  const topic = `bench-e2e-${round}`;
  await createTopicEndpoint(stack, instance, "bench", topic);
  const arrivals = await countArrivals(stack.serviceBus.connectionString(), topic);
  try {
    const pids = stackPids();
    const warm = sizes.shape.perRequest;
    await driver.post(instance, warm, `warm-${round}`, sizes.shape);
    await arrivals.until(warm);
    const post = await driver.prepare(instance, sizes.events, `e2e-${round}`, sizes.shape);
    return await profiledRun(`end-to-end-${round}`, () =>
      timedRun([arrivals], sizes.events, warm + sizes.events, post, pids),
    );
  } finally {
    await arrivals.close();
  }
}

/** A sender whose link is open (as the host's pooled senders already are). */
async function openSender(client: ServiceBusClient, topic: string): Promise<ServiceBusSender> {
  const sender = client.createSender(topic);
  await sender.sendMessages(toServiceBusMessage(makeEvents(1, `open-${topic}`)[0] as CloudEvent));
  return sender;
}

/**
 * Which path a round runs first: end to end in odd rounds, the raw SDK in even ones. The stand-in
 * broker and Azurite are processes shared by both paths, so whichever runs first in a round also
 * pays for what the other left behind (their garbage collection, measured at 60 – 210 ms of the
 * stand-in's CPU per run) and, in round 1, for the stand-in's code still being compiled; a fixed
 * order would always bill that to the same path.
 */
export function endToEndFirst(round: number): boolean {
  return round % 2 === 1;
}

async function deliveryRound(drive: BenchDrive, round: number, sizes: DeliverySizes): Promise<DeliveryRound> {
  const { stack } = drive;
  const client = new ServiceBusClient(stack.serviceBus.connectionString());
  try {
    const first = endToEndFirst(round) ? await endToEnd(drive, round, sizes) : undefined;
    const ceilingTopic = `bench-ceiling-${round}`;
    const ceilingSender = await openSender(client, ceilingTopic);
    const ceilingEvents = makeEvents(sizes.events, `ceiling-${round}`);
    const ceiling = await profiledRun(`raw-sdk-${round}`, () =>
      timedToTopic(stack, ceilingTopic, sizes.events, () => sendInBatches([ceilingSender], ceilingEvents)),
    );
    const endToEndRun = first ?? (await endToEnd(drive, round, sizes));
    const perEventTopic = `bench-per-event-${round}`;
    const perEventSender = await openSender(client, perEventTopic);
    const perEventEvents = makeEvents(sizes.perEventEvents, `per-event-${round}`);
    const perEvent = await timedToTopic(stack, perEventTopic, sizes.perEventEvents, async () => {
      for (const event of perEventEvents) await perEventSender.sendMessages(toServiceBusMessage(event));
    });
    return { endToEnd: endToEndRun, ceiling, perEvent };
  } finally {
    await client.close();
  }
}

/**
 * Events per second from the first ingest request to a topic subscriber, next to the ceiling (the
 * raw SDK sending the same number of events in batches to the same broker and the same kind of
 * subscriber) and the baseline of one awaited send per event, each round on fresh topics. Every
 * Service Bus client, the host's included, reaches the broker through the stack's connection
 * strings (behind the delay relay in `npm run bench`). The ingest client is a process of its own.
 * The two paths take turns going first (endToEndFirst).
 */
export async function benchDelivery(drive: BenchDrive, sizes: DeliverySizes): Promise<Rounds<DeliveryRound>> {
  await warmBroker(drive.stack, sizes.events);
  return runRounds(sizes.rounds, (round) => deliveryRound(drive, round, sizes));
}

/**
 * One untimed raw-SDK run through the stand-in broker and a subscriber before round 1, so its code
 * is compiled before either path is measured (the end-to-end run has its own warm-up request).
 */
async function warmBroker(stack: BenchStack, events: number): Promise<void> {
  const client = new ServiceBusClient(stack.serviceBus.connectionString());
  try {
    const sender = await openSender(client, "bench-warm");
    const warmEvents = makeEvents(events, "warm");
    await timedToTopic(stack, "bench-warm", events, () => sendInBatches([sender], warmEvents));
  } finally {
    await client.close();
  }
}
