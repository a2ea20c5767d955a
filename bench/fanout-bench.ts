import { ServiceBusClient } from "@azure/service-bus";
import { toServiceBusMessage } from "../src/delivery/service-bus-message";
import type { CloudEvent } from "../src/events/cloud-event";
import { type Arrivals, countArrivals } from "./arrivals";
import type { IngestShape } from "./bench-events";
import type { BenchDrive } from "./delivery-bench";
import { endToEndFirst } from "./delivery-bench";
import { stackPids } from "./process-cpu";
import { sendInBatches } from "./raw-sends";
import { type Rounds, runRounds } from "./rounds";
import { type TimedRun, timedRun } from "./timed-run";
import { benchInstance, createTopicEndpoint, makeEvents } from "./twin-events";

/** One fan-out level: the service's run and the raw SDK's run to as many topics. */
export interface FanOutFigure {
  endpoints: number;
  events: number;
  service: TimedRun;
  raw: TimedRun;
}

export interface FanOutSizes {
  levels: readonly number[];
  events: number;
  shape: IngestShape;
  rounds: number;
}

async function subscribe(drive: BenchDrive, topics: string[]): Promise<Arrivals[]> {
  const subscribers: Arrivals[] = [];
  try {
    for (const topic of topics)
      subscribers.push(await countArrivals(drive.stack.serviceBus.connectionString(), topic));
  } catch (error) {
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
    throw error;
  }
  return subscribers;
}

/**
 * The service: a fresh instance with `endpoints` endpoints, each on its own topic with its own
 * subscriber. A warm-up request goes through first (the queue trigger is then polling, as under
 * steady traffic); the timed part runs from the first ingest request until every subscriber has
 * every event.
 */
async function serviceFanOut(drive: BenchDrive, round: number, endpoints: number, sizes: FanOutSizes) {
  // A fresh instance: delivery caches an instance's endpoint list, so a reused one would miss new endpoints.
  const instance = benchInstance(`fanout-${round}-${endpoints}`);
  const topics = Array.from({ length: endpoints }, (_, index) => `fanout-${round}-${endpoints}-${index}`);
  for (const [index, topic] of topics.entries())
    await createTopicEndpoint(drive.stack, instance, `to-${index}`, topic);
  const subscribers = await subscribe(drive, topics);
  try {
    const pids = stackPids();
    const warm = sizes.shape.perRequest;
    await drive.driver.post(instance, warm, `warm-${round}-${endpoints}`, sizes.shape);
    await Promise.all(subscribers.map((subscriber) => subscriber.until(warm)));
    const post = await drive.driver.prepare(
      instance,
      sizes.events,
      `fanout-${round}-${endpoints}`,
      sizes.shape,
    );
    return await timedRun(subscribers, sizes.events, warm + sizes.events, post, pids);
  } finally {
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
  }
}

/**
 * The raw SDK: the same events, batched once, sent to `endpoints` topics (open links), one
 * subscriber each. One client (AMQP connection) per topic, as the host's sender pool has one per
 * endpoint connection string.
 */
async function rawFanOut(drive: BenchDrive, round: number, endpoints: number, sizes: FanOutSizes) {
  const topics = Array.from({ length: endpoints }, (_, index) => `raw-fanout-${round}-${endpoints}-${index}`);
  const clients = topics.map((topic) => new ServiceBusClient(drive.stack.serviceBus.connectionString(topic)));
  try {
    const senders = clients.map((client, index) => client.createSender(topics[index] as string));
    const opener = toServiceBusMessage(makeEvents(1, "open")[0] as CloudEvent);
    await Promise.all(senders.map((sender) => sender.sendMessages(opener)));
    const subscribers = await subscribe(drive, topics);
    try {
      const events = makeEvents(sizes.events, `raw-fanout-${round}-${endpoints}`);
      return await timedRun(subscribers, sizes.events, sizes.events, () => sendInBatches(senders, events));
    } finally {
      await Promise.all(subscribers.map((subscriber) => subscriber.close()));
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

/**
 * Every fan-out level once per round, in order, on the same stack. The service's run and the raw
 * SDK's take turns going first (as in the delivery part): whichever runs first meets a broker with
 * the other's garbage still to collect, so a fixed order would charge one side with the other's.
 */
export function benchFanOut(drive: BenchDrive, sizes: FanOutSizes): Promise<Rounds<FanOutFigure[]>> {
  return runRounds(sizes.rounds, async (round) => {
    const figures: FanOutFigure[] = [];
    for (const endpoints of sizes.levels) {
      const serviceFirst = endToEndFirst(round);
      const early = serviceFirst ? await serviceFanOut(drive, round, endpoints, sizes) : undefined;
      const raw = await rawFanOut(drive, round, endpoints, sizes);
      const service = early ?? (await serviceFanOut(drive, round, endpoints, sizes));
      figures.push({ endpoints, events: sizes.events, service, raw });
    }
    return figures;
  });
}
