import { performance } from "node:perf_hooks";
import { type Arrivals, countArrivals } from "./arrivals";
import type { BenchStack } from "./local-stack";
import { cpuSpent, snapshotCpu } from "./process-cpu";
import { type Rounds, runRounds } from "./rounds";
import { benchInstance, createTopicEndpoint, ingestAll, makeEvents } from "./twin-events";

export interface FanOutFigure {
  endpoints: number;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** events × endpoints / seconds: Service Bus messages the pipeline delivered per second. */
  deliveriesPerSecond: number;
  /** Share of the time this thread (the host: ingest, queue trigger, delivery) was busy. */
  hostBusy: number;
  /** The host's thread, busy ms per 1,000 events. */
  hostMsPerThousand: number;
  /** CPU ms per 1,000 events by process (process-cpu.ts), largest first. */
  cpu: [process: string, ms: number][];
}

export interface FanOutSizes {
  levels: readonly number[];
  events: number;
  rounds: number;
}

/**
 * One fan-out level: a fresh instance with `endpoints` endpoints, each on its own topic with its
 * own subscriber. A warm-up batch goes through first (the queue trigger is then polling, as under
 * steady traffic); the timed part runs from the first ingest request until every subscriber has
 * every event.
 */
async function fanOut(
  stack: BenchStack,
  round: number,
  endpoints: number,
  events: number,
): Promise<FanOutFigure> {
  // A fresh instance: delivery caches an instance's endpoint list, so a reused one would miss new endpoints.
  const instance = benchInstance(`fanout-${round}-${endpoints}`);
  const subscribers: Arrivals[] = [];
  try {
    for (let index = 0; index < endpoints; index++) {
      const topic = `fanout-${round}-${endpoints}-${index}`;
      await createTopicEndpoint(stack, instance, `to-${index}`, topic);
      subscribers.push(await countArrivals(stack.serviceBus.connectionString(), topic));
    }
    await ingestAll(stack, instance, makeEvents(100, `warm-${round}-${endpoints}`));
    await Promise.all(subscribers.map((subscriber) => subscriber.until(100)));
    const cpuBefore = snapshotCpu();
    const busyBefore = performance.eventLoopUtilization();
    const started = performance.now();
    await ingestAll(stack, instance, makeEvents(events, `fanout-${round}-${endpoints}`));
    const finished = Math.max(...(await Promise.all(subscribers.map((s) => s.until(100 + events)))));
    const busy = performance.eventLoopUtilization(busyBefore);
    const cpu = cpuSpent(cpuBefore, snapshotCpu()).map(([name, ms]): [string, number] => [
      name,
      (ms * 1000) / events,
    ]);
    const seconds = (finished - started) / 1000;
    return {
      endpoints,
      events,
      seconds,
      eventsPerSecond: events / seconds,
      deliveriesPerSecond: (events * endpoints) / seconds,
      hostBusy: busy.utilization,
      hostMsPerThousand: (busy.active * 1000) / events,
      cpu,
    };
  } finally {
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
  }
}

/** Every fan-out level once per round, in order, on the same stack. */
export function benchFanOut(stack: BenchStack, sizes: FanOutSizes): Promise<Rounds<FanOutFigure[]>> {
  return runRounds(sizes.rounds, async (round) => {
    const figures: FanOutFigure[] = [];
    for (const endpoints of sizes.levels) figures.push(await fanOut(stack, round, endpoints, sizes.events));
    return figures;
  });
}
