import type { ColdStartFigures } from "./cold-start";
import { formatRange, goalVerdict, roundErrors } from "./rounds";

/** The cold-start goals (docs/performance.md): a new instance loads and answers quickly, and small. */
export const COLD_START_GOALS = { requireMs: 200, rssMb: 60, firstRequestMs: 300 };

function ms(value: number): string {
  return `${Math.round(value).toLocaleString("en-US")} ms`;
}

function mb(value: number): string {
  return `${value.toFixed(1)} MB`;
}

function line(label: string, range: string, goal: string, verdict: string): void {
  console.log(`  ${label.padEnd(58)} ${range.padEnd(18)} ${goal.padEnd(10)} ${verdict}`);
}

/** How `npm run bench` prints cold start: each figure as a range over rounds, next to its goal. */
export function printColdStart(figures: ColdStartFigures): void {
  const loads = figures.require.values;
  const firsts = figures.firstRequest.values.map((round) => round.firstRequestMs);
  const requireMs = loads.map((round) => round.requireMs);
  const rssMb = loads.map((round) => round.rssMb);
  console.log("");
  line("", "range", "goal", "");
  line(
    "require of every dist/functions/*.js (in the child)",
    formatRange(requireMs, ms),
    `≤ ${COLD_START_GOALS.requireMs} ms`,
    goalVerdict(requireMs, (value) => value <= COLD_START_GOALS.requireMs),
  );
  line(
    "  RSS after it",
    formatRange(rssMb, mb),
    `≤ ${COLD_START_GOALS.rssMb} MB`,
    goalVerdict(rssMb, (value) => value <= COLD_START_GOALS.rssMb),
  );
  line(
    "  process uptime after it (Node's start included)",
    formatRange(
      loads.map((round) => round.uptimeMs),
      ms,
    ),
    "",
    "",
  );
  line(
    "first answer of the local host (its own process), from spawn",
    formatRange(firsts, ms),
    `≤ ${COLD_START_GOALS.firstRequestMs} ms`,
    goalVerdict(firsts, (value) => value <= COLD_START_GOALS.firstRequestMs),
  );
  line('floor: `node -e ""` from spawn to exit', formatRange(figures.nodeFloor.values, ms), "", "");
  console.log(`  route asked: ${figures.route}; ${figures.rounds} rounds, each in fresh processes.`);
  for (const [label, rounds] of [
    ["require", figures.require],
    ["first request", figures.firstRequest],
    ["node floor", figures.nodeFloor],
  ] as const) {
    for (const error of roundErrors(label, rounds)) console.log(error);
  }
}
