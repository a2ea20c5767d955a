import type { DeliveryResults, DeliveryRound, PointRuns, Run } from "./delivery";
import { formatRange, roundErrors, spread } from "./rounds";
import type { ChartSpec } from "./svg-chart";

type Range = { min: number; max: number };
/** A curve as ranges over rounds, for a chart: x is the event size in KB, or the endpoints. */
export type Curve = { x: number; service: Range; forwarder: Range }[];
export type Figure = (run: Run) => number;
export const rate: Figure = (run) => run.eventsPerSecond;
export const cpu: Figure = (run) => run.cpuPerThousand;
const at = (round: DeliveryRound, kb: number, endpoints: number) =>
  round.points.find((point) => point.eventBytes === kb * 1024 && point.endpoints === endpoints);

/** Events/s and CPU µs per event (= ms per 1,000) against event size at 1 endpoint and endpoints at 1 KB. */
export function deliveryCurves({ sizes, rounds }: DeliveryResults) {
  const curve = (xs: number[], where: (x: number) => [number, number], f: Figure): Curve =>
    xs.map((x) => {
      const found = rounds.values.flatMap((round) => at(round, ...where(x)) ?? []);
      const range = (path: "service" | "forwarder") =>
        spread(found.map((point) => f(point[path]))) ?? { min: Number.NaN, max: Number.NaN };
      return { x, service: range("service"), forwarder: range("forwarder") };
    });
  const kbs = [...new Set([1, ...sizes.sizesKb])];
  return {
    sizeRate: curve(kbs, (kb) => [kb, 1], rate),
    sizeCpu: curve(kbs, (kb) => [kb, 1], cpu),
    endpointsRate: curve(sizes.endpoints, (n) => [1, n], rate),
    endpointsCpu: curve(sizes.endpoints, (n) => [1, n], cpu),
  };
}

/** Each goal's value per round (NaN where a round lacks its points); fan-out: the fewest endpoints against the most. */
export function deliveryGoals({ sizes, rounds }: DeliveryResults) {
  const [few, many] = [Math.min(...sizes.endpoints), Math.max(...sizes.endpoints)];
  const main = (f: (point: PointRuns, round: DeliveryRound) => number) =>
    rounds.values.map((round) => (at(round, 1, 1) ? f(at(round, 1, 1) as PointRuns, round) : Number.NaN));
  const time = (round: DeliveryRound, path: "service" | "forwarder") =>
    rate(at(round, 1, few)?.[path] as Run) / rate(at(round, 1, many)?.[path] as Run);
  return {
    few,
    many,
    rate: main((point) => rate(point.service) / rate(point.forwarder)),
    cpu: main((point) => cpu(point.service) / cpu(point.forwarder)),
    perEvent: main((point, round) => rate(point.service) / round.perEventPerSecond),
    fanOut: rounds.values.map((round) => time(round, "service") / time(round, "forwarder")),
  };
}

/** "held in rounds 1, 3 of 3", "held in none of 3". */
function held(values: number[], holds: (value: number) => boolean): string {
  const which = values.flatMap((value, index) => (holds(value) ? [index + 1] : []));
  const rounds = which.length === 0 ? "none" : `round${which.length > 1 ? "s" : ""} ${which.join(", ")}`;
  return `held in ${rounds} of ${values.length}`;
}

const whole = (value: number) => Math.round(value).toLocaleString("en-US");
export const two = (value: number) => value.toFixed(2);

/** Two runs a round, over the rounds: "a – b / c – d (their ratio's range)" of one figure. */
export function sideBySide(pairs: [Run, Run][], f: Figure, format = whole): string {
  const range = (g: (pair: [Run, Run]) => number, as = format) => formatRange(pairs.map(g), as);
  return `${range(([a]) => f(a))} / ${range(([, b]) => f(b))} (${range(([a, b]) => f(a) / f(b), two)})`;
}

/** The bench process's CPU in cores over the rounds, the busier of each round's two runs. */
export const driverCores = (pairs: [Run, Run][]) =>
  formatRange(
    pairs.map(([a, b]) => Math.max(a.driverCores, b.driverCores)),
    two,
  );

/** A goal's line: its values' range over the rounds and the rounds in which it held. */
export function goalLine(label: string, values: number[], goal: number, atLeast: boolean): void {
  const verdict = held(values, (v) => (atLeast ? v >= goal : v <= goal));
  const range = formatRange(values, two).padEnd(13);
  console.log(`  ${label.padEnd(58)} ${range} goal ${atLeast ? ">=" : "<="} ${goal}: ${verdict}`);
}

export function printDelivery(results: DeliveryResults): void {
  const { rounds } = results;
  for (const point of rounds.values[0]?.points ?? []) {
    const runs = rounds.values.flatMap((round) => at(round, point.eventBytes / 1024, point.endpoints) ?? []);
    const pairs = runs.map((p): [Run, Run] => [p.service, p.forwarder]);
    console.log(
      `  ${point.eventBytes / 1024} KB, ${point.endpoints} endpoint(s), ${point.events} events: events/s ${sideBySide(pairs, rate)}; CPU ms per 1,000 events ${sideBySide(pairs, cpu)}; bench process ${driverCores(pairs)} of a core`,
    );
  }
  console.log("  (service / forwarder (ratio); bench process: subscribers)");
  const goals = deliveryGoals(results);
  const perEvent = rounds.values.map((round) => round.perEventPerSecond);
  console.log(`  one awaited send per event (1 KB): ${formatRange(perEvent, whole)} events/s`);
  goalLine("service / forwarder, events/s (1 KB, 1 endpoint)", goals.rate, 0.8, true);
  goalLine("host CPU per event / forwarder's (1 KB, 1 endpoint)", goals.cpu, 1.3, false);
  goalLine("service / one awaited send per event", goals.perEvent, 30, true);
  goalLine(
    `fan-out, ${goals.many} vs ${goals.few}: service's time ratio / forwarder's`,
    goals.fanOut,
    1.15,
    false,
  );
  for (const error of roundErrors("delivery", rounds)) console.log(error);
}

/** The four delivery curves as charts (bench/svg-chart.ts): service and forwarder, ranges over rounds. */
export function deliveryCharts(results: DeliveryResults): ChartSpec[] {
  const curves = deliveryCurves(results);
  const chart = (title: string, xLabel: string, yLabel: string, curve: Curve): ChartSpec => ({
    title,
    xLabel,
    yLabel,
    series: (["service", "forwarder"] as const).map((path) => ({
      name: path === "service" ? "the service" : "bare forwarder",
      points: curve.map((point) => ({ x: point.x, ...point[path] })),
    })),
  });
  return [
    chart("Delivery against event size (1 endpoint)", "event size, KB", "events/s", curves.sizeRate),
    chart(
      "CPU per event against event size (1 endpoint)",
      "event size, KB",
      "CPU µs per event",
      curves.sizeCpu,
    ),
    chart(
      "Delivery against endpoints (1 KB events)",
      "endpoints of the instance",
      "events/s",
      curves.endpointsRate,
    ),
    chart(
      "CPU per event against endpoints (1 KB events)",
      "endpoints of the instance",
      "CPU µs per event",
      curves.endpointsCpu,
    ),
  ];
}
