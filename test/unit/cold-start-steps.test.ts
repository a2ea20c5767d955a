import { coldStartSteps } from "../../bench/cold-start-steps";
import type { ColdStartTrace } from "../../bench/cold-start-trace";

// The cold-start bench cuts the way to the first answer into steps from the host's trace; the parts
// in order must add up to the total the bench measured itself.
const SPAWN = 1_000_000;

function trace(overrides: Partial<ColdStartTrace> = {}): ColdStartTrace {
  return {
    preload: SPAWN + 60,
    loads: {
      zod: { start: SPAWN + 80, end: SPAWN + 110, cpu: 28 },
      "@azure/functions": { start: SPAWN + 120, end: SPAWN + 125, cpu: 5 },
      "@azure/storage-queue": { start: SPAWN + 150, end: SPAWN + 230, cpu: 70 },
      "@azure/cosmos": { start: SPAWN + 300, end: SPAWN + 390, cpu: 85 },
    },
    listening: SPAWN + 260,
    requestIn: SPAWN + 290,
    responseOut: SPAWN + 420,
    cpuAtAnswer: 390,
    cosmos: [
      { path: "/", start: SPAWN + 392, end: SPAWN + 405 },
      { path: "/dbs/db/colls/profiles/docs/x", start: SPAWN + 406, end: SPAWN + 408 },
    ],
    ...overrides,
  };
}

describe("coldStartSteps", () => {
  it("cuts the way into steps that add up to the total", () => {
    const steps = coldStartSteps(trace(), SPAWN, SPAWN + 421);
    expect(steps).toEqual({
      nodeStart: 60,
      hostLoad: 200,
      zodLoad: 30,
      functionsLoad: 5,
      queueSdkLoad: 80,
      untilRequest: 30,
      request: 130,
      cosmosSdkLoad: 90,
      cosmosMetadata: 13,
      cosmosRead: 2,
      toDriver: 1,
      total: 421,
      cpu: 390,
      zodLoadCpu: 28,
      cosmosSdkLoadCpu: 85,
    });
    expect(steps.nodeStart + steps.hostLoad + steps.untilRequest + steps.request + steps.toDriver).toBe(
      steps.total,
    );
  });

  it("counts every Cosmos DB request before the read as metadata, and one never answered as nothing", () => {
    const cosmos = [
      { path: "/", start: SPAWN + 392, end: SPAWN + 400 },
      { path: "/dbs/db/colls/profiles", start: SPAWN + 400, end: SPAWN + 404 },
      { path: "/dbs/db/colls/profiles/pkranges", start: SPAWN + 404 },
      { path: "/dbs/db/colls/profiles/docs/x", start: SPAWN + 405, end: SPAWN + 408 },
    ];
    const steps = coldStartSteps(trace({ cosmos }), SPAWN, SPAWN + 421);
    expect(steps.cosmosMetadata).toBe(12);
    expect(steps.cosmosRead).toBe(3);
  });

  it("the queue SDK loaded after listening (the triggers start after the first answer) is not part of loading the host", () => {
    const loads = {
      ...trace().loads,
      "@azure/storage-queue": { start: SPAWN + 400, end: SPAWN + 460, cpu: 55 },
    };
    expect(coldStartSteps(trace({ loads }), SPAWN, SPAWN + 421).queueSdkLoad).toBe(0);
  });

  it("a package never loaded (the queue SDK in Azure's worker) counts 0 ms", () => {
    const { "@azure/storage-queue": _queue, ...loads } = trace().loads;
    expect(coldStartSteps(trace({ loads }), SPAWN, SPAWN + 421).queueSdkLoad).toBe(0);
  });

  it("refuses a trace without a first request rather than report made-up steps", () => {
    const { responseOut: _out, ...unanswered } = trace();
    expect(() => coldStartSteps(unanswered, SPAWN, SPAWN + 421)).toThrow("no first request");
    const { listening: _listening, ...neverListened } = trace();
    expect(() => coldStartSteps(neverListened, SPAWN, SPAWN + 421)).toThrow("no first request");
  });
});
