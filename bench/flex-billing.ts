/**
 * What Flex Consumption bills an on-demand instance for, from when its executions ran. Microsoft's
 * rules (learn.microsoft.com/azure/azure-functions/flex-consumption-plan#billing): "the total
 * amount of memory provisioned while each on demand instance is actively executing functions (in
 * GB-seconds)" and "the total number of executions"; "the minimum billable execution period … is
 * 1,000 ms. Past that, the billable activity period is rounded up to the nearest 100 ms."
 *
 * Read here as: the instance is active while any execution runs, so executions that overlap are
 * billed once; a period of activity is billed at least 1,000 ms, and an execution that starts
 * within that first second belongs to the same period (the instance is billed for it anyway);
 * past it, the period lasts while executions do and is rounded up to the next 100 ms. An instance
 * is therefore never billed more than its memory × the wall-clock time; busy without a gap, it is
 * billed for all of it.
 */

export interface Execution {
  /** performance.now() when it began and ended, in ms. */
  start: number;
  end: number;
}

const MINIMUM_MS = 1000;
const ROUNDING_MS = 100;

/** The billed activity periods of one instance, each [start, billed end], in order. */
export function billedPeriods(executions: readonly Execution[]): [number, number][] {
  const sorted = [...executions].sort((a, b) => a.start - b.start);
  const periods: [number, number][] = [];
  let current: { start: number; end: number } | undefined;
  const close = () => {
    if (!current) return;
    const length = Math.max(MINIMUM_MS, Math.ceil((current.end - current.start) / ROUNDING_MS) * ROUNDING_MS);
    periods.push([current.start, current.start + length]);
  };
  for (const execution of sorted) {
    if (current && execution.start <= Math.max(current.end, current.start + MINIMUM_MS)) {
      current.end = Math.max(current.end, execution.end);
      continue;
    }
    close();
    current = { start: execution.start, end: execution.end };
  }
  close();
  // A period rounded past the start of the next one is not billed twice for the overlap.
  for (let i = 1; i < periods.length; i++) {
    const previous = periods[i - 1] as [number, number];
    const period = periods[i] as [number, number];
    if (previous[1] > period[0]) previous[1] = period[0];
  }
  return periods;
}

/** Billed milliseconds of activity of one instance. */
export function billedMs(executions: readonly Execution[]): number {
  return billedPeriods(executions).reduce((sum, [start, end]) => sum + (end - start), 0);
}

/** GB-s for `ms` of billed activity of an instance of `instanceMemoryMb` (Flex bills 1 GB as 1,024 MB). */
export function gbSeconds(ms: number, instanceMemoryMb: number): number {
  return (instanceMemoryMb / 1024) * (ms / 1000);
}
