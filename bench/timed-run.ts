import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { performance } from "node:perf_hooks";
import { QUEUE_TRIGGER_RECEIVED } from "../dev/queue-trigger";
import type { Arrivals } from "./arrivals";
import { cpuSpent, snapshotCpu, stackPids, threadCpuMs } from "./process-cpu";

/** CPU milliseconds per 1,000 events, by process (process-cpu.ts), largest first. */
export type CpuPerThousand = [process: string, ms: number][];

/** One timed run: from the start of `send` until every subscriber has its messages. */
export interface TimedRun {
  events: number;
  eventsPerSecond: number;
  seconds: number;
  /** How long `send` took (end to end: until the last ingest request was answered). */
  sendSeconds: number;
  /** Until the first message reached a subscriber. */
  firstArrivalSeconds: number;
  /** End to end only: until the host's queue trigger first found messages (a poll that got some). */
  firstPollSeconds?: number;
  /** CPU ms per 1,000 events of every process of the stack (the ingest driver's included). */
  cpu: CpuPerThousand;
  /** The bench process's main thread (the host, or the raw SDK's sender), CPU ms per 1,000 events. */
  mainThreadMs: number;
  /** The subscribers' worker threads together, CPU ms per 1,000 events. */
  subscribersMs: number;
}

/**
 * Times `send` of `events` events until each subscriber has `expected` messages, with what every
 * process of the stack spent (from /proc) and the bench process's share split into its main
 * thread and its subscriber threads (each thread's own CPU time, from /proc; the rest of the
 * process's CPU is its other threads: garbage collection, the compiler, libuv's pool).
 */
export async function timedRun(
  subscribers: Arrivals[],
  events: number,
  expected: number,
  send: () => Promise<void>,
  /** The stack's processes (stackPids()), found before a warm-up so the start follows it closely. */
  pids: readonly number[] = stackPids(),
): Promise<TimedRun> {
  const cpuBefore = snapshotCpu(pids);
  const mainBefore = threadCpuMs(process.pid);
  const subscribersBefore = subscribers.map((subscriber) => subscriber.cpuMs());
  const receivedBefore = subscribers.map((subscriber) => subscriber.received());
  const started = performance.now();
  const firstPoll = firstReceiveAfter(started);
  const firstArrival = Promise.all(
    subscribers.map((subscriber, index) => subscriber.until((receivedBefore[index] ?? 0) + 1)),
  )
    .then((times) => Math.min(...times))
    // Should `send` fail, this wait must not outlive the run as an unhandled rejection.
    .catch(() => Number.NaN);
  await send();
  const sent = performance.now();
  const finished = Math.max(...(await Promise.all(subscribers.map((s) => s.until(expected)))));
  const mainMs = threadCpuMs(process.pid) - mainBefore;
  const subscribersMs = subscribers.reduce(
    (sum, subscriber, index) => sum + subscriber.cpuMs() - (subscribersBefore[index] ?? 0),
    0,
  );
  const perThousand = (ms: number) => (ms * 1000) / events;
  const seconds = (finished - started) / 1000;
  return {
    events,
    eventsPerSecond: events / seconds,
    seconds,
    sendSeconds: (sent - started) / 1000,
    firstArrivalSeconds: ((await firstArrival) - started) / 1000,
    ...(firstPoll.at() !== undefined && { firstPollSeconds: ((firstPoll.at() as number) - started) / 1000 }),
    cpu: cpuSpent(cpuBefore, snapshotCpu(pids), 5).map(([name, ms]): [string, number] => [
      name,
      perThousand(ms),
    ]),
    mainThreadMs: perThousand(mainMs),
    subscribersMs: perThousand(subscribersMs),
  };
}

/**
 * When the local host's queue trigger (in this process, end to end) first found messages after
 * `since`, from its diagnostics channel; undefined for a run without it (the raw SDK's).
 */
function firstReceiveAfter(since: number): { at(): number | undefined } {
  let first: number | undefined;
  const onReceived = (message: unknown) => {
    const { at } = message as { at: number };
    if (first === undefined && at >= since) {
      first = at;
      unsubscribe(QUEUE_TRIGGER_RECEIVED, onReceived);
    }
  };
  subscribe(QUEUE_TRIGGER_RECEIVED, onReceived);
  return {
    at() {
      unsubscribe(QUEUE_TRIGGER_RECEIVED, onReceived);
      return first;
    },
  };
}

/** The sum of a CPU breakdown. */
export function totalCpu(cpu: CpuPerThousand): number {
  return cpu.reduce((sum, [, ms]) => sum + ms, 0);
}
