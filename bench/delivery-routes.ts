import {
  type DeliveryDrive,
  type DeliveryPoint,
  measureEach,
  type Run,
  serviceFirst,
  withDeliveryChildren,
} from "./delivery";
import { cpu, driverCores, type Figure, goalLine, rate, sideBySide, two } from "./delivery-report";
import type { BenchStack } from "./local-stack";
import { type Rounds, roundErrors, runRounds } from "./rounds";

/** As many endpoints as an instance may have routes (ROUTES_PER_INSTANCE_MAX's default). */
export const ROUTED_ENDPOINTS = 6;
/**
 * A `$body` filter per endpoint, each its own text (each compiled and run on its own), each
 * letting every bench event through: the first patch value of makeEvents' events is 20 – 29. Both
 * sides then send 6 messages an event, and only the routing differs.
 */
export const routeFilters = (endpoints: number) =>
  Array.from({ length: endpoints }, (_, index) => `$body.patch[0].value >= ${index}`);

export type RoutesSizes = Record<"events" | "requestEvents" | "rounds", number>;
export type RoutesRound = Record<"routed" | "unrouted", Run>;
export type RoutesResults = { point: DeliveryPoint; rounds: Rounds<RoutesRound> };

/** The service delivering the same events to 6 endpoints, each behind a route, and to 6 without routes. */
export function measureRoutes(drive: DeliveryDrive, point: DeliveryPoint, routedFirst: boolean) {
  const routed = { ...point, filters: routeFilters(point.endpoints) };
  const order: ["routed" | "unrouted", "service", DeliveryPoint][] = [
    ["routed", "service", routed],
    ["unrouted", "service", point],
  ];
  return measureEach(drive, point, routedFirst ? order : order.reverse());
}

/**
 * The routes part: the host as a child process on `stack` (behind its relay; the forwarder's
 * process idles), one untimed measurement, then rounds of 1 KB events to 6 endpoints with and
 * without routes, the routed run first in odd rounds.
 */
export function benchRoutes(stack: BenchStack, sizes: RoutesSizes): Promise<RoutesResults> {
  const point: DeliveryPoint = { events: sizes.events, eventBytes: 1024, endpoints: ROUTED_ENDPOINTS };
  return withDeliveryChildren(stack, sizes.requestEvents, async (drive) => {
    await measureRoutes(drive, { ...point, events: Math.min(sizes.events, 1000) }, true);
    const rounds = await runRounds(sizes.rounds, (round) => measureRoutes(drive, point, serviceFirst(round)));
    return { point, rounds };
  });
}

/** The measured process's CPU over a run, in cores. */
const hostCores: Figure = (run) => (run.cpuPerThousand * run.eventsPerSecond) / 1e6;

export function printRoutes({ point, rounds }: RoutesResults): void {
  const pairs = rounds.values.map((round): [Run, Run] => [round.routed, round.unrouted]);
  const filters = routeFilters(point.endpoints);
  console.log(
    `  1 KB, ${point.endpoints} endpoints, ${point.events} events; a route per endpoint, \`${filters[0]}\` … \`${filters.at(-1)}\`: each lets every event through (${point.endpoints} messages an event either way)`,
  );
  console.log(
    `  events/s ${sideBySide(pairs, rate)}; CPU ms per 1,000 events ${sideBySide(pairs, cpu)}; host process ${sideBySide(pairs, hostCores, two)} of a core; bench process ${driverCores(pairs)} of a core`,
  );
  console.log("  (routed / without routes (ratio); bench process: subscribers)");
  const ratios = pairs.map(([routed, unrouted]) => rate(routed) / rate(unrouted));
  goalLine(`routed / without routes, events/s (1 KB, ${point.endpoints} endpoints)`, ratios, 0.9, true);
  for (const error of roundErrors("routes", rounds)) console.log(error);
}
