import * as path from "node:path";
import { type BenchStack, startBenchStack } from "../../bench/local-stack";

// The delivery bench's routes part at a tiny size, so it cannot rot: the host (a process of its
// own, built into dist/bench by the global setup) delivers the same events to 6 endpoints behind
// a route each, then to 6 without routes, each run waiting until every topic has every event
// (a filter that held an event back would leave its topic short: the round fails within the timeout).
process.env.BENCH_TIMEOUT_SECONDS ??= "30";
const { benchRoutes, ROUTED_ENDPOINTS } = require(
  path.join(__dirname, "..", "..", "dist", "bench", "delivery-routes.js"),
) as typeof import("../../bench/delivery-routes");

let stack: BenchStack;
beforeAll(async () => {
  stack = await startBenchStack();
});
afterAll(async () => {
  await stack?.stop();
});

it("runs rounds of routed and unrouted delivery of the same events, every event to every endpoint", async () => {
  const results = await benchRoutes(stack, { events: 40, requestEvents: 10, rounds: 2 });
  expect(results.rounds.errors).toEqual([]);
  expect(results.point).toMatchObject({ events: 40, endpoints: ROUTED_ENDPOINTS });
  expect(results.rounds.values).toHaveLength(2);
  for (const round of results.rounds.values)
    for (const run of [round.routed, round.unrouted]) {
      expect(run.eventsPerSecond).toBeGreaterThan(0);
      expect(run.cpuPerThousand).toBeGreaterThan(0);
    }
}, 120_000);
