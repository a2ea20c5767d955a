import type { AuthBenchResult, AuthRound } from "./auth-bench";
import { formatRange, goalVerdict, roundErrors } from "./rounds";

/** How `npm run bench` prints the auth part: keys and entra side by side, ranges over rounds. */

function whole(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function percent(value: number): string {
  return `${Math.round(value * 100)} %`;
}

const WIDTHS = [22, 16, 22, 26, 0] as const;

function row(cells: readonly string[]): string {
  return `  ${cells.map((cell, index) => cell.padEnd(WIDTHS[index] ?? 0)).join("")}`.trimEnd();
}

function modeRow(result: AuthBenchResult, mode: "keys" | "entra", label: string): string {
  const rounds = result.rounds.values;
  const range = (pick: (round: AuthRound) => number, format: (value: number) => string) =>
    formatRange(rounds.map(pick), format);
  return row([
    label,
    range((round) => round[mode].perSecond, whole),
    `${range((round) => round[mode].cpuMicrosPerRequest, whole)} us`,
    `${range((round) => round.driver[mode].cpuMicrosPerRequest, whole)} us`,
    range((round) => round.driver[mode].coreShare, percent),
  ]);
}

export function printAuthComparison(result: AuthBenchResult): void {
  const ratios = result.rounds.values.map((round) => round.ratio);
  console.log("");
  console.log(
    row([
      `GET, in flight ${result.concurrency}`,
      "req/s",
      "host CPU per request",
      "driver CPU per request",
      "driver busy (of a core)",
    ]),
  );
  console.log(modeRow(result, "keys", "AUTH_MODE=keys"));
  console.log(modeRow(result, "entra", "AUTH_MODE=entra"));
  console.log("");
  console.log(
    `  entra/keys per round: ${formatRange(ratios, (value) => value.toFixed(2))} (goal >= ${result.goal.toFixed(2)}: ${goalVerdict(ratios, (ratio) => ratio >= result.goal)})`,
  );
  const cpu = result.rounds.values.map(
    (round) => round.entra.cpuMicrosPerRequest / round.keys.cpuMicrosPerRequest,
  );
  console.log(
    `  entra/keys host CPU per request, per round: ${formatRange(cpu, (value) => value.toFixed(2))}`,
  );
  console.log(`  Requests to the issuer while measuring: ${result.issuerRequests}.`);
  const errors = roundErrors("auth", result.rounds);
  for (const line of errors) console.log(line);
  console.log("");
  console.log(
    "  Both hosts are child processes on the same Cosmos server, driven by one long-lived driver process",
  );
  console.log(
    "  (the HTTP part's); host and driver CPU: each process's own time on a CPU (/proc), read around each slice.",
  );
}
