import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { processCpuMicros, snapshotCpu } from "./process-cpu";

/** One second of the stack, as the soak part sees it. */
export interface StackSample {
  /** Ms since the epoch, at the end of the second. */
  at: number;
  /** The longest the bench process's event loop (the in-process host's) was held up, in ms. */
  hostLoopDelayMaxMs: number;
  /** Share of one core the watched child used over the second (1 = a whole core). */
  childCpu: number;
  /** The watched child's resident memory, in MB. */
  childRssMb: number;
}

function rssMb(pid: number): number {
  try {
    // statm: size resident shared … in pages; Linux pages are 4 KiB on the machines this runs on.
    const resident = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
    return (resident * 4096) / 1_048_576;
  } catch {
    return Number.NaN;
  }
}

/**
 * Samples, every second, the host's event-loop delay and one child process of the stack (found by
 * its script, e.g. "queue/main.js" for Azurite's queue service) from /proc: a timeline that says
 * whether a slow stretch was the host's thread held up or the storage stand-in busy or growing.
 * Linux only; elsewhere the child's figures are NaN.
 */
export function sampleStack(childScript: string, everyMs = 1000): { stop(): StackSample[] } {
  const child = [...snapshotCpu()].find(([, process]) => process.name === childScript)?.[0];
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const samples: StackSample[] = [];
  const cpuMs = () => (child === undefined ? Number.NaN : processCpuMicros(child) / 1000);
  let lastCpu = cpuMs();
  let lastAt = performance.now();
  const timer = setInterval(() => {
    const cpu = cpuMs();
    const now = performance.now();
    samples.push({
      at: Date.now(),
      hostLoopDelayMaxMs: delay.max / 1e6,
      childCpu: (cpu - lastCpu) / (now - lastAt),
      childRssMb: child === undefined ? Number.NaN : rssMb(child),
    });
    delay.reset();
    lastCpu = cpu;
    lastAt = now;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      delay.disable();
      return samples;
    },
  };
}
