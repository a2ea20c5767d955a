import { performance } from "node:perf_hooks";
import { type Arrivals, countArrivals } from "./arrivals";
import type { BenchStack } from "./local-stack";
import { benchInstance, createTopicEndpoint, ingestAll, makeEvents } from "./twin-events";

export interface FanOutFigure {
  endpoints: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** events × endpoints / seconds: Service Bus messages the pipeline delivered per second. */
  deliveriesPerSecond: number;
  /**
   * Events per second from the first arrival at any subscriber to the last: the rate once
   * delivery runs, without the start-up (the idle queue trigger polls only every 2 s at most).
   */
  steadyEventsPerSecond: number;
  /** Share of the time this thread (the host: ingest, queue trigger, delivery) was busy. */
  hostBusy: number;
}

/**
 * One fan-out level: a fresh instance with `endpoints` endpoints, each on its own topic with its
 * own subscriber, timed from the first ingest request until every subscriber has every event.
 */
async function fanOut(stack: BenchStack, endpoints: number, events: number): Promise<FanOutFigure> {
  // A fresh instance: delivery caches an instance's endpoint list, so a reused one would miss new endpoints.
  const instance = benchInstance(`fanout-${endpoints}`);
  const subscribers: Arrivals[] = [];
  try {
    for (let index = 0; index < endpoints; index++) {
      const topic = `fanout-${endpoints}-${index}`;
      await createTopicEndpoint(stack, instance, `to-${topic}`, topic);
      subscribers.push(await countArrivals(stack.serviceBus.connectionString(), topic));
    }
    const batch = makeEvents(events, `fanout-${endpoints}`);
    const busyBefore = performance.eventLoopUtilization();
    const started = performance.now();
    await ingestAll(stack, instance, batch);
    const finished = Math.max(...(await Promise.all(subscribers.map((s) => s.until(events)))));
    const hostBusy = performance.eventLoopUtilization(busyBefore).utilization;
    const seconds = (finished - started) / 1000;
    const firstArrival = Math.min(...subscribers.map((s) => s.firstArrivalAt() ?? finished));
    return {
      endpoints,
      events,
      seconds,
      eventsPerSecond: events / seconds,
      deliveriesPerSecond: (events * endpoints) / seconds,
      steadyEventsPerSecond: events / ((finished - firstArrival) / 1000),
      hostBusy,
    };
  } finally {
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
  }
}

/** Delivery throughput at each fan-out level, in order, on the same stack. */
export async function benchFanOut(
  stack: BenchStack,
  levels: readonly number[],
  events: number,
): Promise<FanOutFigure[]> {
  const figures: FanOutFigure[] = [];
  for (const endpoints of levels) figures.push(await fanOut(stack, endpoints, events));
  return figures;
}
