import { performance } from "node:perf_hooks";

export interface RunFigure {
  count: number;
  seconds: number;
  /** Operations that succeeded, per second: failures do not count as throughput. */
  perSecond: number;
  /** Failed operations by what they failed with (an HTTP status, or "error: …"). */
  failures: Record<string, number>;
}

/**
 * Runs `op(0..count-1)` with `concurrency` operations in flight, and times it. `op` returns
 * undefined on success, else what it failed with. Bounded by `count`: every index runs once.
 */
export async function runConcurrent(
  count: number,
  concurrency: number,
  op: (index: number) => Promise<string | undefined>,
): Promise<RunFigure> {
  const failures: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next++;
        const failure = await op(index).catch((error: Error) => `error: ${error.message}`);
        if (failure !== undefined) failures[failure] = (failures[failure] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const failed = Object.values(failures).reduce((sum, n) => sum + n, 0);
  return { count, seconds, perSecond: (count - failed) / seconds, failures };
}
