import type { HttpBenchResult, HttpComparison, ServerFigure } from "./http-bench";
import { formatRange, goalVerdict, roundErrors } from "./rounds";

/** How `npm run bench` prints the HTTP part: the service next to the bare server, as ranges over rounds. */

function whole(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function twoDigits(value: number): string {
  return value.toFixed(2);
}

function column(text: string, width: number): string {
  return text.padEnd(width);
}

const WIDTHS = [13, 11, 18, 18, 52, 0] as const;

function row(cells: readonly string[]): string {
  return `  ${cells.map((cell, index) => column(cell, WIDTHS[index] ?? 0)).join("")}`.trimEnd();
}

function comparisonRow(comparison: HttpComparison): string {
  const rounds = comparison.rounds.values;
  const ratios = rounds.map((round) => round.ratio);
  const verdict = goalVerdict(ratios, (ratio) => ratio >= comparison.goal);
  const cpu = (pick: (round: (typeof rounds)[number]) => ServerFigure) =>
    formatRange(
      rounds.map((round) => pick(round).cpuMicrosPerRequest),
      whole,
    );
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
    `${cpu((round) => round.service)} us vs ${cpu((round) => round.bare)} us`,
  ]);
}

function failures(figure: ServerFigure): string {
  return Object.entries(figure.failures)
    .map(([what, count]) => `${count} x ${what}`)
    .join(", ");
}

/** The HTTP table: per operation and requests in flight, ranges over the rounds; failed rounds below. */
export function printHttpComparison(result: HttpBenchResult): void {
  console.log("");
  console.log(
    row([
      "operation",
      "in flight",
      "service req/s",
      "bare req/s",
      "service/bare per round",
      "CPU per request: service vs bare",
    ]),
  );
  for (const comparison of result.comparisons) console.log(comparisonRow(comparison));
  for (const create of result.creates) {
    const failed = failures(create.figure);
    console.log(
      row([
        "PUT create",
        String(create.concurrency),
        whole(create.figure.perSecond),
        "-",
        "(service only)",
        `${whole(create.figure.cpuMicrosPerRequest)} us${failed === "" ? "" : `; failed: ${failed}`}`,
      ]),
    );
  }
  const errors = result.comparisons.flatMap((comparison) =>
    roundErrors(`${comparison.operation}, ${comparison.concurrency} in flight`, comparison.rounds),
  );
  if (errors.length > 0) {
    console.log("");
    console.log("  Rounds that failed (not in the ranges above):");
    for (const line of errors) console.log(line);
  }
  console.log("");
  console.log("  Both servers are child processes on the same Cosmos server, driven from one worker thread;");
  console.log("  CPU per request: the process's user + system time (/proc) over the requests it served.");
}
