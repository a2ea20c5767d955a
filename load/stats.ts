/** Latency percentiles and status counts, per route and overall. */

/** The nearest-rank percentile (p in 0..100) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export type Outcome =
  | { kind: "answer"; status: number; expected: boolean; ms: number; body?: string }
  | { kind: "transport"; message: string; ms: number };

/** Up to this many example bodies / messages are kept per route and kind, for the summary. */
const SAMPLES = 3;

export class RouteStats {
  readonly latencies: number[] = [];
  readonly statuses = new Map<number, number>();
  unexpected4xx = 0;
  transportErrors = 0;
  /** Examples of what went wrong: unexpected 4xx, 5xx, transport errors. */
  readonly samples: string[] = [];

  get requests(): number {
    return this.latencies.length;
  }

  count(range: 2 | 3 | 4 | 5): number {
    let total = 0;
    for (const [status, n] of this.statuses) if (Math.floor(status / 100) === range) total += n;
    return total;
  }

  record(outcome: Outcome): void {
    this.latencies.push(outcome.ms);
    if (outcome.kind === "transport") {
      this.transportErrors++;
      this.sample(`transport error: ${outcome.message}`);
      return;
    }
    this.statuses.set(outcome.status, (this.statuses.get(outcome.status) ?? 0) + 1);
    const unexpected = !outcome.expected && outcome.status >= 400 && outcome.status < 500;
    if (unexpected) this.unexpected4xx++;
    if (unexpected || outcome.status >= 500 || (!outcome.expected && outcome.status < 400)) {
      this.sample(`${outcome.status}: ${(outcome.body ?? "").slice(0, 300)}`);
    }
  }

  /** Sorted once, when the run is over. */
  percentiles(): { p50: number; p99: number; max: number } {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
  }

  private sample(line: string): void {
    if (this.samples.length < SAMPLES) this.samples.push(line);
  }
}

export class LoadStats {
  readonly routes = new Map<string, RouteStats>();
  requests = 0;
  fiveHundreds = 0;
  transportErrors = 0;

  record(route: string, outcome: Outcome): void {
    let stats = this.routes.get(route);
    if (stats === undefined) {
      stats = new RouteStats();
      this.routes.set(route, stats);
    }
    stats.record(outcome);
    this.requests++;
    if (outcome.kind === "transport") this.transportErrors++;
    else if (outcome.status >= 500) this.fiveHundreds++;
  }

  /** Every route's figures merged: the overall line of the summary. */
  overall(): RouteStats {
    const all = new RouteStats();
    for (const stats of this.routes.values()) {
      // A loop, not push(...spread): a long run has more latencies than a call takes arguments.
      for (const ms of stats.latencies) all.latencies.push(ms);
      for (const [status, n] of stats.statuses) all.statuses.set(status, (all.statuses.get(status) ?? 0) + n);
      all.unexpected4xx += stats.unexpected4xx;
      all.transportErrors += stats.transportErrors;
    }
    return all;
  }
}

/** LoadStats as plain data, to cross from the load worker thread to the main thread. */
export interface LoadStatsData {
  routes: [
    string,
    {
      latencies: number[];
      statuses: [number, number][];
      unexpected4xx: number;
      transportErrors: number;
      samples: string[];
    },
  ][];
}

export function toData(stats: LoadStats): LoadStatsData {
  return {
    routes: [...stats.routes].map(([route, s]) => [
      route,
      {
        latencies: s.latencies,
        statuses: [...s.statuses],
        unexpected4xx: s.unexpected4xx,
        transportErrors: s.transportErrors,
        samples: s.samples,
      },
    ]),
  };
}

export function fromData(data: LoadStatsData): LoadStats {
  const stats = new LoadStats();
  for (const [route, d] of data.routes) {
    const s = new RouteStats();
    for (const ms of d.latencies) s.latencies.push(ms);
    for (const [status, n] of d.statuses) s.statuses.set(status, n);
    s.unexpected4xx = d.unexpected4xx;
    s.transportErrors = d.transportErrors;
    s.samples.push(...d.samples);
    stats.routes.set(route, s);
    stats.requests += s.requests;
    stats.fiveHundreds += s.count(5);
    stats.transportErrors += s.transportErrors;
  }
  return stats;
}
