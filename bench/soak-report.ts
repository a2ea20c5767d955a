import { formatRange, goalVerdict } from "./rounds";
import type { SoakRun } from "./soak-bench";
import type { SoakWindow } from "./soak-windows";

/**
 * "No stall": in every window of the soak, every ingest request got its 202 within the timeout
 * and the window's p99 answer time stayed within this. A healthy window's p99 is tens of ms; the
 * stalls this goal was written for held answers 17–26 s.
 */
export const SOAK_GOAL = { windowP99Ms: 1000 };

const whole = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "–");
const ms = (value: number) => `${whole(value)} ms`;

/** A window's figure for the goal: its p99, or infinitely slow when a request went unanswered. */
export function stallFigure(window: SoakWindow): number {
  return window.unanswered > 0 ? Number.POSITIVE_INFINITY : window.p99;
}

function row(cells: string[], widths: number[]): string {
  return `  ${cells.map((cell, index) => cell.padStart(widths[index] as number)).join("")}`;
}

export function printSoak(run: SoakRun, windowEvents: number): void {
  const widths = [17, 9, 9, 10, 10, 13, 11, 11, 11];
  console.log("");
  console.log(
    row(["events", "p50", "p99", "max", "no 202", "end to end", "Azurite", "Azurite", "host loop"], widths),
  );
  console.log(
    row(["", "ingest answer (ms)", "", "", "", "p99 (ms)", "CPU max", "RSS MB", "delay max"], widths),
  );
  for (const window of run.windows) {
    const last = window.firstEvent + window.events;
    console.log(
      row(
        [
          `${whole(window.firstEvent)} – ${whole(last)}`,
          whole(window.p50),
          whole(window.p99),
          whole(window.max),
          String(window.unanswered),
          whole(window.endToEndP99),
          Number.isFinite(window.storageCpuMax) ? `${Math.round(window.storageCpuMax * 100)} %` : "–",
          whole(window.storageRssMb),
          ms(window.hostLoopDelayMaxMs),
        ],
        widths,
      ),
    );
  }
  const p99 = run.windows.map((window) => window.p99);
  const figures = run.windows.map(stallFigure);
  const verdict = goalVerdict(
    figures.map((figure) => (Number.isFinite(figure) ? figure : Number.MAX_VALUE)),
    (figure) => figure <= SOAK_GOAL.windowP99Ms,
    "windows",
  );
  const events = run.windows.reduce((sum, window) => sum + window.events, 0);
  const unanswered = Object.values(run.failures).reduce((sum, count) => sum + count, 0);
  console.log("");
  console.log(
    `  ingest p99 per ${whole(windowEvents)} events  ${formatRange(p99, ms)}   goal (no stall: p99 <= ${whole(SOAK_GOAL.windowP99Ms)} ms and every request answered, in every window): ${verdict}`,
  );
  console.log(
    `  ingest p50 per window ${formatRange(
      run.windows.map((window) => window.p50),
      ms,
    )}; max per window ${formatRange(
      run.windows.map((window) => window.max),
      ms,
    )}; end to end p99 per window ${formatRange(
      run.windows.map((window) => window.endToEndP99),
      ms,
    )}`,
  );
  console.log(
    `  ${whole(run.requests - unanswered)} of ${whole(run.requests)} requests answered 202; ${whole(run.delivered)} of ${whole(events)} events delivered; ${run.seconds.toFixed(0)} s; load generator's thread busy ${Math.round(run.driverBusy * 100)} %`,
  );
  for (const [what, count] of Object.entries(run.failures)) console.log(`  no 202: ${count} x ${what}`);
}
