import * as path from "node:path";

// The cost part at a tiny size, so it cannot rot and its counts stay what they claim: the
// deployment package (built into dist/ by the global setup) in a process of its own, fed as the
// Functions host feeds it. Nothing here is timed: the figures that depend on the machine's speed
// (wall time, GB-s, events per message) only have to exist; the counts must be exact.
const { benchCost, printCost } = require(
  path.join(__dirname, "..", "..", "dist", "bench", "cost.js"),
) as typeof import("../../bench/cost");

it("measures every case of one instance, and no successful delivery or request leaves a log line behind", async () => {
  const results = await benchCost(1, 0, 1);
  expect(results.rounds.errors).toEqual([]);
  const [round] = results.rounds.values;
  if (!round) throw new Error("no round");
  const of = (label: string) => {
    const found = round.quantities[label];
    if (!found) throw new Error(`no case ${label}`);
    return found;
  };
  for (const [label, endpoints, perRequest] of [
    ["one-by-one-1", 1, 1],
    ["one-by-one-6", 6, 1],
    ["batched-1", 1, 20],
    ["batched-6", 6, 20],
  ] as const) {
    const q = of(label);
    expect(q.executions["twinEvents-ingest"]).toBe(1 / perRequest);
    // One delivery execution per queue message, and each event reaches every endpoint once.
    expect(q.executions["twinEvents-deliver"]).toBeCloseTo(q.queueMessages, 10);
    expect(q.queueMessages).toBeGreaterThan(0);
    expect(q.queueMessages).toBeLessThanOrEqual(1 / perRequest);
    expect(q.serviceBusMessages).toBe(endpoints);
    expect(q.storage.put).toBe(q.queueMessages);
    expect(q.storage.delete).toBe(q.queueMessages);
    expect(q.telemetry.appTraceLines).toBe(0);
    expect(q.gbSeconds).toBeGreaterThan(0);
  }
  const api = of("api");
  expect(Object.values(api.executions).reduce((a, b) => a + b, 0)).toBe(1);
  expect(api.ru).toBeGreaterThan(1);
  expect(api.telemetry.appTraceLines).toBe(0);
  expect(api.telemetry.requestRows).toBeGreaterThan(0);
  expect(round.rssMaxMb).toBeGreaterThan(round.rssAfterLoadMb * 0.5);
  const lines: string[] = [];
  const log = jest.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
  try {
    printCost(results);
  } finally {
    log.mockRestore();
  }
  expect(lines.join("\n")).toMatch(/USD per million/);
  expect(lines.join("\n")).not.toMatch(/NaN|undefined|Infinity/);
}, 240_000);
