import * as path from "node:path";
import { Worker } from "node:worker_threads";
import { countArrivals } from "./arrivals";
import type { SteadyJob, SteadyResult } from "./latency-worker";
import { BENCH_FUNCTION_KEY, type BenchStack } from "./local-stack";
import { type Rounds, runRounds } from "./rounds";
import { benchInstance, createTopicEndpoint, makeEvents } from "./twin-events";

export interface LatencySizes {
  eventsPerSecond: number;
  seconds: number;
  rounds: number;
}

/** One round's latencies, in milliseconds, from the ingest request to the broker's acknowledgement. */
export interface LatencyRound {
  events: number;
  p50: number;
  p99: number;
  max: number;
  /** Share of the run the host's thread was busy. */
  hostBusy: number;
  /** p99 of the ingest requests' answers (the 202 once the events are on the queue), in ms. */
  answerP99: number;
}

/** Longer than the idle trigger's longest poll interval (host.json maxPollingInterval, 2 s). */
const WARM_UP_SECONDS = 3;

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

/**
 * Steady traffic, open loop: one event per ingest request, a request every 1/rate seconds whether
 * or not the previous one has answered (as devices do). For each event, the time from sending its
 * ingest request to the broker enqueuing it (the message's enqueued time, stamped when the broker
 * accepts the send and acknowledges it), read off a fresh subscriber of the endpoint's topic.
 * Same machine, same clock. The first WARM_UP_SECONDS of traffic are sent but not counted: they
 * measure the idle queue trigger waking up (it polls an empty queue at most every 2 s), not the
 * steady state.
 */
async function latencyRound(stack: BenchStack, round: number, sizes: LatencySizes): Promise<LatencyRound> {
  const instance = benchInstance(`latency-${round}`);
  const topic = `latency-${round}`;
  await createTopicEndpoint(stack, instance, "steady", topic);
  const arrivals = await countArrivals(stack.serviceBus.connectionString(), topic, { timestamps: true });
  try {
    const skip = Math.round(sizes.eventsPerSecond * WARM_UP_SECONDS);
    const count = skip + Math.round(sizes.eventsPerSecond * sizes.seconds);
    const events = makeEvents(count, `latency-${round}`);
    const job: SteadyJob = {
      baseUrl: stack.baseUrl,
      path: `${instance}/events`,
      headers: { "x-functions-key": BENCH_FUNCTION_KEY, "content-type": "application/cloudevents+json" },
      events: events.map((event) => ({ id: event.id, body: JSON.stringify(event) })),
      eventsPerSecond: sizes.eventsPerSecond,
    };
    const busyBefore = performance.eventLoopUtilization();
    const steady = await runSteady(job);
    const failed = Object.entries(steady.failures);
    if (failed.length > 0)
      throw new Error(`ingest failed: ${failed.map(([what, n]) => `${n} x ${what}`).join(", ")}`);
    const sentAt = new Map(steady.sentAt);
    await arrivals.until(count);
    const hostBusy = performance.eventLoopUtilization(busyBefore).utilization;
    const enqueuedAt = new Map(arrivals.enqueued());
    const latencies = events
      .slice(skip)
      .map((event) => (enqueuedAt.get(event.id) ?? Number.NaN) - (sentAt.get(event.id) as number))
      .sort((a, b) => a - b);
    return {
      events: latencies.length,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies.at(-1) ?? Number.NaN,
      hostBusy,
      answerP99: percentile(
        steady.answerMs.slice(skip).sort((a, b) => a - b),
        0.99,
      ),
    };
  } finally {
    await arrivals.close();
  }
}

function runSteady(job: SteadyJob): Promise<SteadyResult> {
  const worker = new Worker(path.join(__dirname, "latency-worker.js"), { workerData: job });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the ingest worker exited with ${code}`)));
  });
}

/** Latency at a steady rate, one fresh instance and topic per round. */
export function benchLatency(stack: BenchStack, sizes: LatencySizes): Promise<Rounds<LatencyRound>> {
  return runRounds(sizes.rounds, (round) => latencyRound(stack, round, sizes));
}
