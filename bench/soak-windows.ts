import type { StackSample } from "./process-sampler";

/** One stretch of `window` events of the soak, in the order they were sent. */
export interface SoakWindow {
  /** Index of the window's first event (0, 10,000, 20,000, …). */
  firstEvent: number;
  events: number;
  requests: number;
  /** Requests that got no 202 (no answer within the timeout, a transport error or another status). */
  unanswered: number;
  /** Answer times of the window's answered ingest requests, in ms (NaN when none was answered). */
  p50: number;
  p99: number;
  max: number;
  /** p99 of its events' time from the ingest request to the broker's enqueued time (NaN for any not delivered). */
  endToEndP99: number;
  /** Over the seconds the window's requests were sent: the storage stand-in's CPU (share of a core, max) and RSS (MB, last). */
  storageCpuMax: number;
  storageRssMb: number;
  /** The longest the host's event loop was held up in those seconds, in ms. */
  hostLoopDelayMaxMs: number;
}

export interface SoakTimings {
  events: number;
  batch: number;
  window: number;
  /** Per request, in the order sent: when it was sent (ms since the epoch) and its answer time (NaN if none). */
  sentAt: readonly number[];
  answerMs: readonly number[];
  /** Per event (by its index): when the broker enqueued it, ms since the epoch; undefined if it never arrived. */
  enqueuedAt: readonly (number | undefined)[];
  samples: readonly StackSample[];
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

const ascending = (a: number, b: number) => a - b;

/** Cuts the soak into windows of `window` events (a request belongs to the window of its first event). */
export function soakWindows(timings: SoakTimings): SoakWindow[] {
  const windows: SoakWindow[] = [];
  const requests = timings.sentAt.length;
  for (let firstEvent = 0; firstEvent < timings.events; firstEvent += timings.window) {
    const from = Math.ceil(firstEvent / timings.batch);
    const to = Math.min(requests, Math.ceil((firstEvent + timings.window) / timings.batch));
    if (from >= to) break;
    const answers = timings.answerMs.slice(from, to);
    const answered = answers.filter(Number.isFinite).sort(ascending);
    const endToEnd: number[] = [];
    for (let request = from; request < to; request++) {
      const last = Math.min(timings.events, (request + 1) * timings.batch);
      for (let event = request * timings.batch; event < last; event++) {
        const at = timings.enqueuedAt[event];
        endToEnd.push(at === undefined ? Number.POSITIVE_INFINITY : at - (timings.sentAt[request] as number));
      }
    }
    endToEnd.sort(ascending);
    const start = timings.sentAt[from] as number;
    const end = (timings.sentAt[to - 1] as number) + 1000;
    const seconds = timings.samples.filter((sample) => sample.at >= start && sample.at <= end);
    windows.push({
      firstEvent,
      events: endToEnd.length,
      requests: to - from,
      unanswered: answers.length - answered.length,
      p50: percentile(answered, 0.5),
      p99: percentile(answered, 0.99),
      max: answered.at(-1) ?? Number.NaN,
      endToEndP99: ((p) => (Number.isFinite(p) ? p : Number.NaN))(percentile(endToEnd, 0.99)),
      storageCpuMax:
        seconds.length === 0 ? Number.NaN : Math.max(...seconds.map((sample) => sample.childCpu)),
      storageRssMb: seconds.at(-1)?.childRssMb ?? Number.NaN,
      hostLoopDelayMaxMs: Math.max(0, ...seconds.map((sample) => sample.hostLoopDelayMaxMs)),
    });
  }
  return windows;
}

/** One second of the soak: its requests' answers next to what the stack did in that second. */
export interface SoakSecond {
  second: number;
  sent: number;
  unanswered: number;
  p99: number;
  max: number;
  hostLoopDelayMaxMs: number;
  storageCpu: number;
  storageRssMb: number;
}

/** The soak second by second (by when each request was sent), for finding where a slow window came from. */
export function soakTimeline(timings: SoakTimings): SoakSecond[] {
  const start = timings.sentAt[0];
  if (start === undefined) return [];
  const seconds: { answers: number[]; sent: number }[] = [];
  for (const [index, at] of timings.sentAt.entries()) {
    const second = Math.floor((at - start) / 1000);
    seconds[second] ??= { answers: [], sent: 0 };
    (seconds[second] as { sent: number }).sent++;
    seconds[second]?.answers.push(timings.answerMs[index] as number);
  }
  return [...seconds.entries()].map(([second, slot]) => {
    const answered = (slot?.answers ?? []).filter(Number.isFinite).sort(ascending);
    const sample = timings.samples.find((s) => s.at >= start + second * 1000 + 1000);
    return {
      second,
      sent: slot?.sent ?? 0,
      unanswered: (slot?.answers.length ?? 0) - answered.length,
      p99: percentile(answered, 0.99),
      max: answered.at(-1) ?? Number.NaN,
      hostLoopDelayMaxMs: sample?.hostLoopDelayMaxMs ?? Number.NaN,
      storageCpu: sample?.childCpu ?? Number.NaN,
      storageRssMb: sample?.childRssMb ?? Number.NaN,
    };
  });
}
