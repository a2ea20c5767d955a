import { readdirSync, readFileSync } from "node:fs";

/**
 * The CPU time of one process's threads, in microseconds, to the nanosecond: the sum of each
 * thread's time on a CPU (/proc/<pid>/task/<tid>/schedstat; /proc/<pid>/stat counts 10 ms ticks,
 * too coarse for a short run). Threads that have exited are not in it, so it compares spans of a
 * process whose threads live on. Linux only: NaN elsewhere, which the bench prints as such.
 */
export function processCpuMicros(pid: number): number {
  try {
    let nanos = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8");
      nanos += Number(text.slice(0, text.indexOf(" ")));
    }
    return nanos / 1000;
  } catch {
    return Number.NaN;
  }
}
