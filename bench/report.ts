import type { DeliveryRound } from "./delivery-bench";
import type { FanOutFigure } from "./fanout-bench";
import type { LatencyRound } from "./latency-bench";
import { formatRange, goalVerdict, type Rounds, roundErrors } from "./rounds";

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

export const DELIVERY_GOALS = { ofCeiling: 0.9, overPerEvent: 30 };

export function printDelivery(rounds: Rounds<DeliveryRound>): void {
  const pick = (f: (round: DeliveryRound) => number) => rounds.values.map(f);
  const ofCeiling = pick((r) => r.endToEnd / r.ceiling);
  const overPerEvent = pick((r) => r.endToEnd / r.perEvent);
  console.log("");
  console.log(
    `  end to end (ingest -> queue -> trigger -> topic -> subscriber)  ${formatRange(
      pick((r) => r.endToEnd),
      whole,
    )} events/s`,
  );
  console.log(
    `  ceiling (raw SDK, batched sends, same broker and subscriber)   ${formatRange(
      pick((r) => r.ceiling),
      whole,
    )} events/s`,
  );
  console.log(
    `  baseline (raw SDK, one awaited send per event)                 ${formatRange(
      pick((r) => r.perEvent),
      whole,
    )} events/s`,
  );
  console.log("");
  console.log(
    `  end to end / ceiling    ${formatRange(ofCeiling, ratio(2))}   goal >= ${DELIVERY_GOALS.ofCeiling}: ${goalVerdict(ofCeiling, (v) => v >= DELIVERY_GOALS.ofCeiling)}`,
  );
  console.log(
    `  end to end / per event  ${formatRange(overPerEvent, ratio(1, "x"))}   goal >= ${DELIVERY_GOALS.overPerEvent}x: ${goalVerdict(overPerEvent, (v) => v >= DELIVERY_GOALS.overPerEvent)}`,
  );
  printCpu(rounds.values);
  printErrors("delivery", rounds);
}

/** Where the cores went: CPU ms per 1,000 events by process, end to end and for the ceiling. */
function printCpu(values: DeliveryRound[]): void {
  if (values.length === 0 || values[0]?.cpu.endToEnd.length === 0) return;
  const names = [
    ...new Set(
      values.flatMap((round) => [...round.cpu.endToEnd, ...round.cpu.ceiling].map(([name]) => name)),
    ),
  ];
  const of = (list: [string, number][], name: string) => list.find(([n]) => n === name)?.[1] ?? 0;
  console.log("");
  console.log(`  CPU ms per 1,000 events${"end to end".padStart(26)}${"ceiling".padStart(16)}`);
  for (const name of names) {
    const e2e = formatRange(
      values.map((round) => of(round.cpu.endToEnd, name)),
      whole,
    );
    const ceiling = formatRange(
      values.map((round) => of(round.cpu.ceiling, name)),
      whole,
    );
    console.log(`  ${name.padEnd(47).slice(0, 47)}${e2e.padStart(14)}${ceiling.padStart(16)}`);
  }
  const total = (list: [string, number][]) => list.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(
    `  ${"all processes".padEnd(47)}${formatRange(
      values.map((r) => total(r.cpu.endToEnd)),
      whole,
    ).padStart(14)}${formatRange(
      values.map((r) => total(r.cpu.ceiling)),
      whole,
    ).padStart(16)}`,
  );
  console.log(
    `  the host's own thread, end to end: ${formatRange(
      values.map((r) => r.hostThreadMsPerThousand),
      whole,
    )} ms per 1,000 events`,
  );
}

export const FANOUT_GOAL = 1.5;

export function printFanOut(rounds: Rounds<FanOutFigure[]>): void {
  const levels = rounds.values[0]?.map((figure) => figure.endpoints) ?? [];
  const at = (endpoints: number) =>
    rounds.values.map((figures) => figures.find((figure) => figure.endpoints === endpoints) as FanOutFigure);
  const cpuOf = (figure: FanOutFigure, name?: string) =>
    figure.cpu
      .filter(([process]) => name === undefined || process === name)
      .reduce((sum, [, ms]) => sum + ms, 0);
  console.log("");
  console.log(
    `  endpoints${"events/s".padStart(16)}${"deliveries/s".padStart(18)}${"host thread".padStart(16)}${"all CPU".padStart(16)}${"broker CPU".padStart(16)}`,
  );
  console.log(`  ${"".padStart(59)}ms per 1,000 events`);
  for (const endpoints of levels) {
    const figures = at(endpoints);
    const column = (f: (figure: FanOutFigure) => number, width: number) =>
      formatRange(figures.map(f), whole).padStart(width);
    console.log(
      `  ${String(endpoints).padStart(9)}${column((f) => f.eventsPerSecond, 16)}${column((f) => f.deliveriesPerSecond, 18)}${column((f) => f.hostMsPerThousand, 16)}${column((f) => cpuOf(f), 16)}${column((f) => cpuOf(f, "service-bus/main.js"), 16)}`,
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
    const time = ratioOf((figure) => 1 / figure.eventsPerSecond);
    console.log("");
    console.log(
      `  time per event, ${most} endpoints vs 1:         ${formatRange(time, ratio(2, "x"))}   goal <= ${FANOUT_GOAL}x: ${goalVerdict(time, (v) => v <= FANOUT_GOAL)}`,
    );
    console.log(
      `  host thread per event, ${most} endpoints vs 1:  ${formatRange(
        ratioOf((f) => f.hostMsPerThousand),
        ratio(2, "x"),
      )}`,
    );
    console.log(
      `  all processes' CPU per event, ${most} vs 1:     ${formatRange(
        ratioOf((f) => cpuOf(f)),
        ratio(2, "x"),
      )}`,
    );
  }
  console.log(
    "  events/s from the first ingest request until every subscriber has every event (after a warm-up batch);",
  );
  console.log(
    "  host thread: the host's own thread (ingest, trigger, delivery); all CPU: every process of the stack,",
  );
  console.log("  the bench process's subscribers and the Service Bus stand-in included.");
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
