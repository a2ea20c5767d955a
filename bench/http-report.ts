import type { DrivenFigure, HttpBenchResult, HttpComparison, HttpRound, ServerFigure } from "./http-bench";
import { formatRange, goalVerdict, roundErrors } from "./rounds";

/** How `npm run bench` prints the HTTP part: the service next to the bare server, as ranges over rounds. */

function whole(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function twoDigits(value: number): string {
  return value.toFixed(2);
}

function percent(value: number): string {
  return `${Math.round(value * 100)} %`;
}

function column(text: string, width: number): string {
  return text.padEnd(width);
}

const WIDTHS = [13, 11, 18, 18, 0] as const;
const CPU_WIDTHS = [13, 11, 17, 17, 30, 26, 0] as const;

function row(cells: readonly string[], widths: readonly number[] = WIDTHS): string {
  return `  ${cells.map((cell, index) => column(cell, widths[index] ?? 0)).join("")}`.trimEnd();
}

function comparisonRow(comparison: HttpComparison): string {
  const rounds = comparison.rounds.values;
  const ratios = rounds.map((round) => round.ratio);
  const verdict = goalVerdict(ratios, (ratio) => ratio >= comparison.goal);
  return row([
    comparison.operation,
    String(comparison.concurrency),
    formatRange(
      rounds.map((round) => round.service.perSecond),
      whole,
    ),
    formatRange(
      rounds.map((round) => round.bare.perSecond),
      whole,
    ),
    `${formatRange(ratios, twoDigits)} (goal >= ${twoDigits(comparison.goal)}: ${verdict})`,
  ]);
}

/** CPU per request of each server and of the driver while it drove each, and the driver's share of a core. */
function cpuRow(comparison: HttpComparison): string {
  const rounds = comparison.rounds.values;
  const range = (pick: (round: HttpRound) => number, format: (value: number) => string) =>
    formatRange(rounds.map(pick), format);
  const both = (pick: (figure: DrivenFigure) => number, format: (value: number) => string, unit: string) =>
    `${range((round) => pick(round.service), format)}${unit} / ${range((round) => pick(round.bare), format)}${unit}`;
  return row(
    [
      comparison.operation,
      String(comparison.concurrency),
      `${range((round) => round.service.cpuMicrosPerRequest, whole)} us`,
      `${range((round) => round.bare.cpuMicrosPerRequest, whole)} us`,
      both((figure) => figure.cosmosMicrosPerRequest, whole, " us"),
      both((figure) => figure.driverMicrosPerRequest, whole, " us"),
      both((figure) => figure.driverCoreShare, percent, ""),
    ],
    CPU_WIDTHS,
  );
}

function failures(figure: ServerFigure): string {
  return Object.entries(figure.failures)
    .map(([what, count]) => `${count} x ${what}`)
    .join(", ");
}

/** The HTTP table: per operation and requests in flight, ranges over the rounds; failed rounds below. */
export function printHttpComparison(result: HttpBenchResult): void {
  console.log("");
  console.log(row(["operation", "in flight", "service req/s", "bare req/s", "service/bare per round"]));
  for (const comparison of result.comparisons) console.log(comparisonRow(comparison));
  for (const create of result.creates) {
    const failed = failures(create.figure);
    console.log(
      row([
        "PUT create",
        String(create.concurrency),
        whole(create.figure.perSecond),
        "-",
        `(service only; CPU ${whole(create.figure.cpuMicrosPerRequest)} us a request)${failed === "" ? "" : `; failed: ${failed}`}`,
      ]),
    );
  }
  console.log("");
  console.log(
    row(
      [
        "CPU",
        "in flight",
        "service per req",
        "bare per req",
        "Cosmos per req (s / b)",
        "driver (s / b)",
        "driver busy, of a core (s / b)",
      ],
      CPU_WIDTHS,
    ),
  );
  for (const comparison of result.comparisons) console.log(cpuRow(comparison));
  const errors = result.comparisons.flatMap((comparison) =>
    roundErrors(`${comparison.operation}, ${comparison.concurrency} in flight`, comparison.rounds),
  );
  if (errors.length > 0) {
    console.log("");
    console.log("  Rounds that failed (not in the ranges above):");
    for (const line of errors) console.log(line);
  }
  console.log("");
  console.log(
    "  Both servers are child processes on the same Cosmos server, driven by one long-lived driver process",
  );
  console.log(
    "  (keep-alive connections and JIT kept across slices); s / b: while it drove the service / the bare",
  );
  console.log(
    "  server. CPU per request: each process's CPU time (/proc) over the requests of its slices; the",
  );
  console.log(
    "  Cosmos server serves both servers, so on a machine whose cores are all busy it bounds both alike.",
  );
}
