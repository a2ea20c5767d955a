import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time of this process and every process under it (the stand-ins, the relay), read from
 * /proc: what each part of the stack spends, so a figure that falls short can say where the
 * machine's cores went. Linux only; elsewhere the snapshots are empty and nothing is reported.
 */
export type CpuSnapshot = Map<number, { name: string; ms: number }>;

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second, which /proc counts CPU time in (usually 100). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

interface ProcStat {
  ppid: number;
  ms: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    // The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { ppid: Number(fields[1]), ms: (ticks * 1000) / clockTicks() };
  } catch {
    return undefined;
  }
}

/** utime + stime of one process, in microseconds; NaN when it cannot be read. */
export function processCpuMicros(pid: number): number {
  const stat = readStat(pid);
  return stat === undefined ? Number.NaN : stat.ms * 1000;
}

/**
 * The CPU time of one process's threads, in microseconds, to the nanosecond: the sum of each
 * thread's time on a CPU (/proc/<pid>/task/<tid>/schedstat), where /proc/<pid>/stat counts in
 * clock ticks (10 ms), too coarse for a slice of a few hundred requests. Threads that have exited
 * are not in it, so it compares spans of a process whose threads live on (a server). Falls back to
 * processCpuMicros where schedstat is not there.
 */
export function processCpuMicrosFine(pid: number): number {
  try {
    let nanos = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8");
      nanos += Number(text.slice(0, text.indexOf(" ")));
    }
    return nanos / 1000;
  } catch {
    return processCpuMicros(pid);
  }
}

/** CPU time (utime + stime) of one thread of this process, in ms; NaN when it cannot be read. */
export function threadCpuMs(tid: number): number {
  try {
    const text = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return Number.NaN;
  }
}

/** What a process is, from its command line: the script's file name, or "this process". */
function nameOf(pid: number): string {
  if (pid === process.pid) return "bench process (host or raw SDK, subscribers)";
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const script = args.find((arg) => arg.endsWith(".js")) ?? args[0] ?? String(pid);
    const parts = script.split("/");
    return parts.slice(-2).join("/");
  } catch {
    return String(pid);
  }
}

/** This process and every process under it, now: a scan of all of /proc (slow on a busy machine). */
export function stackPids(): number[] {
  const stats = new Map<number, ProcStat>();
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  for (const pid of pids) {
    const stat = readStat(Number(pid));
    if (stat) stats.set(Number(pid), stat);
  }
  const mine = new Set([process.pid]);
  // Descendants: keep adding children of what is already in, until nothing changes.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!mine.has(pid) && mine.has(stat.ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  return [...mine];
}

/**
 * CPU time so far of each of `pids` (default: stackPids()). Given the list made beforehand, a
 * snapshot reads only those few files: quick, so it does not stretch the pause before a timed run.
 */
export function snapshotCpu(pids: readonly number[] = stackPids()): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat) snapshot.set(pid, { name: nameOf(pid), ms: stat.ms });
  }
  return snapshot;
}

/** CPU milliseconds each process spent between two snapshots, by name, largest first; idle ones left out. */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot, minimumMs = 20): [string, number][] {
  const byName = new Map<string, number>();
  for (const [pid, end] of after) {
    const spent = end.ms - (before.get(pid)?.ms ?? end.ms);
    if (spent >= minimumMs) byName.set(end.name, (byName.get(end.name) ?? 0) + spent);
  }
  return [...byName].sort((a, b) => b[1] - a[1]);
}
