import type { RunFigure } from "./concurrent";
import type { DeliveryFigures } from "./delivery-bench";
import type { FanOutFigure } from "./fanout-bench";
import type { HttpPair } from "./http-bench";

/** How `npm run bench` prints its figures, with the ratios the project's goals are stated in. */

function whole(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function rate(perSecond: number, unit = "events/s"): string {
  return `${whole(perSecond)} ${unit}`;
}

function goal(ratio: number, target: number, digits = 2, suffix = ""): string {
  return `${ratio.toFixed(digits)}${suffix} (goal >= ${target.toFixed(digits)}${suffix}: ${ratio >= target ? "met" : "NOT met"})`;
}

export function printDelivery(figures: DeliveryFigures): void {
  const ofCeiling = figures.endToEndPerSecond / figures.ceilingPerSecond;
  const overBaseline = figures.endToEndPerSecond / figures.perEventBaselinePerSecond;
  console.log("");
  console.log(
    `  end to end (ingest -> queue -> trigger -> topic -> subscriber)  ${rate(figures.endToEndPerSecond)}`,
  );
  console.log(
    `  ceiling (raw SDK, batched sends to the same topic)              ${rate(figures.ceilingPerSecond)}`,
  );
  console.log(
    `  baseline (raw SDK, one send per event)                          ${rate(figures.perEventBaselinePerSecond)}`,
  );
  console.log("");
  console.log(`  end to end / ceiling   ${goal(ofCeiling, 0.5)}`);
  console.log(`  end to end / baseline  ${goal(overBaseline, 20, 1, "x")}`);
}

function failures(figure: RunFigure): string {
  const entries = Object.entries(figure.failures);
  return entries.map(([what, count]) => `${count} x ${what}`).join(", ");
}

export function printHttp(pairs: HttpPair[]): void {
  console.log("");
  console.log(
    `  ${"".padEnd(26)}${"HTTP".padStart(12)}${"raw SDK".padStart(12)}   HTTP/raw${"".padEnd(24)}host-thread busy per request: HTTP, raw`,
  );
  for (const pair of pairs) {
    const label = `${pair.label}, ${pair.concurrency} in flight`;
    const ratio = pair.http.perSecond / pair.raw.perSecond;
    console.log(
      `  ${label.padEnd(26)}${rate(pair.http.perSecond, "req/s").padStart(12)}${rate(pair.raw.perSecond, "req/s").padStart(12)}   ${goal(ratio, 0.8).padEnd(32)}${whole(pair.http.busyMicrosPerOp ?? Number.NaN)} us, ${whole(pair.raw.busyMicrosPerOp ?? Number.NaN)} us`,
    );
  }
  for (const pair of pairs) {
    const failed = [failures(pair.http), failures(pair.raw)];
    if (failed.some((text) => text !== "")) {
      console.log(
        `  failed, ${pair.label} (${pair.concurrency} in flight): HTTP ${failed[0] || "none"}; raw ${failed[1] || "none"}`,
      );
    }
  }
}

export function printFanOut(figures: FanOutFigure[]): void {
  const single = figures.find((figure) => figure.endpoints === 1);
  console.log("");
  console.log(
    `  endpoints${"events/s".padStart(12)}${"deliveries/s".padStart(15)}${"time/event vs 1".padStart(18)}${"steady events/s".padStart(18)}${"host busy".padStart(11)}`,
  );
  for (const figure of figures) {
    const cost =
      single === undefined ? "" : `${(single.eventsPerSecond / figure.eventsPerSecond).toFixed(2)}x`;
    console.log(
      `  ${String(figure.endpoints).padStart(9)}${whole(figure.eventsPerSecond).padStart(12)}${whole(figure.deliveriesPerSecond).padStart(15)}${cost.padStart(18)}${whole(figure.steadyEventsPerSecond).padStart(18)}${`${whole(figure.hostBusy * 100)} %`.padStart(11)}`,
    );
  }
  console.log("");
  console.log("  events/s from the first ingest request until every subscriber has every event;");
  console.log("  steady: from the first arrival at any subscriber to the last (no trigger start-up);");
  console.log("  host busy: share of that time the host's thread (ingest, trigger, delivery) was busy.");
}
