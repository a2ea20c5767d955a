import type { DeliveryRound } from "./delivery-bench";
import type { FanOutFigure } from "./fanout-bench";
import type { LatencyRound } from "./latency-bench";
import { formatRange, goalVerdict, type Rounds, roundErrors } from "./rounds";
import { type CpuPerThousand, type TimedRun, totalCpu } from "./timed-run";

/** How `npm run bench` prints delivery figures: ranges over rounds, next to baselines and goals. */

function whole(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function ratio(digits: number, suffix = "") {
  return (value: number) => `${value.toFixed(digits)}${suffix}`;
}

function printErrors(label: string, rounds: Rounds<unknown>): void {
  for (const line of roundErrors(label, rounds)) console.log(line);
}

export const DELIVERY_GOALS = { ofCeiling: 0.7, overPerEvent: 30, cpuOverRaw: 1.3 };

export function printDelivery(rounds: Rounds<DeliveryRound>): void {
  const pick = (f: (round: DeliveryRound) => number) => rounds.values.map(f);
  const rate = (f: (round: DeliveryRound) => TimedRun) =>
    formatRange(
      pick((r) => f(r).eventsPerSecond),
      whole,
    );
  const ofCeiling = pick((r) => r.endToEnd.eventsPerSecond / r.ceiling.eventsPerSecond);
  const overPerEvent = pick((r) => r.endToEnd.eventsPerSecond / r.perEvent.eventsPerSecond);
  console.log("");
  console.log(
    `  end to end (ingest -> queue -> trigger -> topic -> subscriber)  ${rate((r) => r.endToEnd)} events/s`,
  );
  console.log(
    `  ceiling (raw SDK, batched sends, same broker and subscriber)   ${rate((r) => r.ceiling)} events/s`,
  );
  console.log(
    `  baseline (raw SDK, one awaited send per event)                 ${rate((r) => r.perEvent)} events/s`,
  );
  const share = (v: number) => `${Math.round(v * 100)} %`;
  console.log(
    `  end to end: the last ingest request answered after ${formatRange(
      pick((r) => r.endToEnd.sendSeconds / r.endToEnd.seconds),
      share,
    )} of the time (ingest alone ${formatRange(
      pick((r) => r.endToEnd.events / r.endToEnd.sendSeconds),
      whole,
    )} events/s);`,
  );
  console.log(
    `  the first event arrived after ${formatRange(
      pick((r) => r.endToEnd.firstArrivalSeconds * 1000),
      whole,
    )} ms, then ${formatRange(
      pick((r) => r.endToEnd.events / (r.endToEnd.seconds - r.endToEnd.firstArrivalSeconds)),
      whole,
    )} events/s`,
  );
  const polled = rounds.values.filter((r) => r.endToEnd.firstPollSeconds !== undefined);
  if (polled.length > 0) {
    const pollMs = polled.map((r) => (r.endToEnd.firstPollSeconds as number) * 1000);
    const afterMs = polled.map(
      (r) => (r.endToEnd.firstArrivalSeconds - (r.endToEnd.firstPollSeconds as number)) * 1000,
    );
    console.log(
      `  of that start: ${formatRange(pollMs, whole)} ms until the trigger's first poll that found messages (it polls 100 ms and more apart once a poll finds none, as the Functions host does), ${formatRange(afterMs, whole)} ms from that poll to the subscriber (the first batch expanded, checked, encoded, sent, acknowledged, delivered)`,
    );
  }
  console.log("");
  console.log(
    `  end to end / per event  ${formatRange(overPerEvent, ratio(1, "x"))}   goal >= ${DELIVERY_GOALS.overPerEvent}x: ${goalVerdict(overPerEvent, (v) => v >= DELIVERY_GOALS.overPerEvent)}`,
  );
  console.log(
    `  end to end / ceiling    ${formatRange(ofCeiling, ratio(2))}   goal >= ${DELIVERY_GOALS.ofCeiling}: ${goalVerdict(ofCeiling, (v) => v >= DELIVERY_GOALS.ofCeiling)}`,
  );
  printCpu(rounds.values);
  printErrors("delivery", rounds);
}

/** One row per process of the breakdowns, as "min – max" per column. */
function printCpuRows(columns: CpuPerThousand[][], widths: number[]): void {
  const names = [...new Set(columns.flatMap((rounds) => rounds.flatMap((cpu) => cpu.map(([name]) => name))))];
  const of = (list: CpuPerThousand, name: string) => list.find(([n]) => n === name)?.[1] ?? 0;
  const row = (label: string, f: (cpu: CpuPerThousand) => number) =>
    console.log(
      `  ${label.padEnd(47).slice(0, 47)}${columns
        .map((rounds, index) => formatRange(rounds.map(f), whole).padStart(widths[index] ?? 16))
        .join("")}`,
    );
  for (const name of names) row(name, (cpu) => of(cpu, name));
  row("all processes", totalCpu);
}

/** Where the cores went: CPU ms per 1,000 delivered events by process, end to end and for the raw SDK. */
function printCpu(values: DeliveryRound[]): void {
  if (values.length === 0 || values[0]?.endToEnd.cpu.length === 0) return;
  console.log("");
  console.log(
    `  CPU ms per 1,000 delivered events${"end to end".padStart(16)}${"raw SDK send + receive".padStart(26)}`,
  );
  printCpuRows([values.map((r) => r.endToEnd.cpu), values.map((r) => r.ceiling.cpu)], [14, 26]);
  const cpuRatio = values.map((r) => totalCpu(r.endToEnd.cpu) / totalCpu(r.ceiling.cpu));
  console.log(
    `  all processes, end to end / raw SDK   ${formatRange(cpuRatio, ratio(2, "x"))}   goal <= ${DELIVERY_GOALS.cpuOverRaw}x: ${goalVerdict(cpuRatio, (v) => v <= DELIVERY_GOALS.cpuOverRaw)}`,
  );
  const withoutDriver = (cpu: CpuPerThousand) =>
    totalCpu(cpu.filter(([name]) => !name.includes("ingest-driver")));
  const driverless = values.map((r) => withoutDriver(r.endToEnd.cpu) / totalCpu(r.ceiling.cpu));
  console.log(
    `  without the HTTP ingest client (bench/ingest-driver-main.js): ${formatRange(
      values.map((r) => withoutDriver(r.endToEnd.cpu)),
      whole,
    )}, ${formatRange(driverless, ratio(2, "x"))} of the raw SDK's`,
  );
  const thread = (f: (r: DeliveryRound) => number) => formatRange(values.map(f), whole);
  console.log("  the bench process's share, by thread (CPU ms per 1,000 events):");
  console.log(
    `    main thread: end to end the host (ingest, queue trigger, delivery) ${thread((r) => r.endToEnd.mainThreadMs)}; raw SDK its sender ${thread((r) => r.ceiling.mainThreadMs)}`,
  );
  console.log(
    `    subscriber thread: end to end ${thread((r) => r.endToEnd.subscribersMs)}; raw SDK ${thread((r) => r.ceiling.subscribersMs)}`,
  );
  console.log(
    "    the rest of the bench process is its other threads (garbage collection, compiler, libuv pool: zlib, DNS);",
  );
  console.log(
    "    the HTTP ingest client is bench/ingest-driver-main.js, a process of its own, counted in the sum.",
  );
}

export const FANOUT_GOAL = 1.15;

export function printFanOut(rounds: Rounds<FanOutFigure[]>): void {
  const levels = rounds.values[0]?.map((figure) => figure.endpoints) ?? [];
  const at = (endpoints: number) =>
    rounds.values.map((figures) => figures.find((figure) => figure.endpoints === endpoints) as FanOutFigure);
  const broker = (run: TimedRun) => run.cpu.find(([name]) => name === "service-bus/main.js")?.[1] ?? 0;
  console.log("");
  console.log(
    `  endpoints  ${"events/s service".padStart(17)}${"raw SDK".padStart(16)}${"host thread".padStart(14)}${"all CPU".padStart(16)}${"raw all CPU".padStart(16)}${"broker CPU".padStart(24)}`,
  );
  console.log(`  ${"".padStart(44)}ms per 1,000 events (broker: service / raw)`);
  for (const endpoints of levels) {
    const figures = at(endpoints);
    const column = (f: (figure: FanOutFigure) => number, width: number) =>
      formatRange(figures.map(f), whole).padStart(width);
    console.log(
      `  ${String(endpoints).padStart(9)}  ${column((f) => f.service.eventsPerSecond, 17)}${column((f) => f.raw.eventsPerSecond, 16)}${column((f) => f.service.mainThreadMs, 14)}${column((f) => totalCpu(f.service.cpu), 16)}${column((f) => totalCpu(f.raw.cpu), 16)}${`${formatRange(
        figures.map((f) => broker(f.service)),
        whole,
      )} / ${formatRange(
        figures.map((f) => broker(f.raw)),
        whole,
      )}`.padStart(24)}`,
    );
  }
  const most = Math.max(...levels);
  if (levels.includes(1) && most > 1) {
    const ratioOf = (f: (figure: FanOutFigure) => number) =>
      rounds.values.map((figures) => {
        const one = figures.find((figure) => figure.endpoints === 1) as FanOutFigure;
        const top = figures.find((figure) => figure.endpoints === most) as FanOutFigure;
        return f(top) / f(one);
      });
    const service = ratioOf((f) => f.service.seconds);
    const raw = ratioOf((f) => f.raw.seconds);
    const relative = service.map((value, index) => value / (raw[index] as number));
    console.log("");
    console.log(
      `  time per event, ${most} vs 1: service ${formatRange(service, ratio(2, "x"))}; raw SDK ${formatRange(raw, ratio(2, "x"))}`,
    );
    console.log(
      `  service's ${most}-vs-1 over the raw SDK's ${most}-vs-1:  ${formatRange(relative, ratio(2, "x"))}   goal <= ${FANOUT_GOAL}x: ${goalVerdict(relative, (v) => v <= FANOUT_GOAL)}`,
    );
    console.log(
      `  the host's own thread per event: ${formatRange(
        at(most).map((f) => f.service.mainThreadMs),
        whole,
      )} ms per 1,000 at ${most}, ${formatRange(
        at(1).map((f) => f.service.mainThreadMs),
        whole,
      )} at 1 (${formatRange(
        ratioOf((f) => f.service.mainThreadMs),
        ratio(2, "x"),
      )})`,
    );
  }
  console.log(
    "  events/s from the first ingest request (raw: the first send) until every subscriber has every event;",
  );
  console.log(
    "  host thread: the bench process's main thread, which runs the host (ingest, trigger, delivery) and",
  );
  console.log("  nothing else (the ingest client is a process of its own, the subscribers worker threads);");
  console.log(
    "  all CPU: every process of the stack, the subscribers and the Service Bus stand-in included.",
  );
  printErrors("fan-out", rounds);
}

export const LATENCY_GOALS = { p50: 300, p99: 2500 };

export function printLatency(rounds: Rounds<LatencyRound>): void {
  const ms = (value: number) => `${whole(value)} ms`;
  const p50 = rounds.values.map((round) => round.p50);
  const p99 = rounds.values.map((round) => round.p99);
  console.log("");
  console.log(
    `  p50  ${formatRange(p50, ms).padEnd(18)} goal <= ${LATENCY_GOALS.p50} ms: ${goalVerdict(p50, (v) => v <= LATENCY_GOALS.p50)}`,
  );
  console.log(
    `  p99  ${formatRange(p99, ms).padEnd(18)} goal <= ${LATENCY_GOALS.p99} ms: ${goalVerdict(p99, (v) => v <= LATENCY_GOALS.p99)}`,
  );
  console.log(
    `  max  ${formatRange(
      rounds.values.map((round) => round.max),
      ms,
    )}`,
  );
  console.log(`  p99 by round: ${p99.map(ms).join(", ")}`);
  console.log(
    `  p99 of the ingest answers (202 once queued) by round: ${rounds.values.map((round) => ms(round.answerP99)).join(", ")}`,
  );
  printErrors("latency", rounds);
}
