import type { ColdStartTrace } from "./cold-start-trace";

/**
 * The way from spawn to the first answer, cut where the trace saw each step begin and end. The
 * parts in order add up to `total` (the bench's own figure, spawn to the answer's last byte);
 * "of which" parts are inside the step above them.
 */
export interface ColdStartSteps {
  /** spawn → the first user code (the trace's preload). */
  nodeStart: number;
  /** preload → the server listening: loading and setting up the host. */
  hostLoad: number;
  /** of hostLoad: zod (its first require, everything it loads). */
  zodLoad: number;
  /** of hostLoad: @azure/functions. */
  functionsLoad: number;
  /**
   * of hostLoad: the queue SDK, which only the local host loads here (its queue trigger); 0 when it
   * loaded after listening (the host starts its triggers after the first answer).
   */
  queueSdkLoad: number;
  /** listening → the first request taken (the driver retries every few ms; the host's event loop may be busy). */
  untilRequest: number;
  /** The first request: taken → answer sent. */
  request: number;
  /** of request: loading the Cosmos DB SDK. */
  cosmosSdkLoad: number;
  /** of request: the Cosmos DB requests before the read (the SDK's account read: endpoint discovery). */
  cosmosMetadata: number;
  /** of request: the read itself (the last Cosmos DB request). */
  cosmosRead: number;
  /** answer sent → the driver has all of it. */
  toDriver: number;
  total: number;
  /** The host's CPU time (user + system) from its start to the answer sent; and that of two loads. */
  cpu: number;
  zodLoadCpu: number;
  cosmosSdkLoadCpu: number;
}

function loadMs(trace: ColdStartTrace, name: string): number {
  const load = trace.loads[name];
  return load === undefined ? 0 : load.end - load.start;
}

/** A load that began while the host was loading, before it listened; 0 for one after (or none). */
function loadBefore(trace: ColdStartTrace, name: string, listening: number): number {
  const start = trace.loads[name]?.start;
  return start === undefined || start >= listening ? 0 : loadMs(trace, name);
}

function loadCpu(trace: ColdStartTrace, name: string): number {
  return trace.loads[name]?.cpu ?? 0;
}

/** Milliseconds of each step, from the trace and the bench's spawn and answer times (epoch ms). */
export function coldStartSteps(trace: ColdStartTrace, spawnAt: number, answeredAt: number): ColdStartSteps {
  const { listening, requestIn, responseOut } = trace;
  if (listening === undefined || requestIn === undefined || responseOut === undefined) {
    throw new Error("the trace has no first request (the host never listened or answered)");
  }
  const calls = trace.cosmos.filter((call) => call.end !== undefined);
  const read = calls.at(-1);
  const span = (call: { start: number; end?: number }) => (call.end ?? call.start) - call.start;
  return {
    nodeStart: trace.preload - spawnAt,
    hostLoad: listening - trace.preload,
    zodLoad: loadMs(trace, "zod"),
    functionsLoad: loadMs(trace, "@azure/functions"),
    queueSdkLoad: loadBefore(trace, "@azure/storage-queue", listening),
    untilRequest: requestIn - listening,
    request: responseOut - requestIn,
    cosmosSdkLoad: loadMs(trace, "@azure/cosmos"),
    cosmosMetadata: calls.slice(0, -1).reduce((sum, call) => sum + span(call), 0),
    cosmosRead: read === undefined ? 0 : span(read),
    toDriver: answeredAt - responseOut,
    total: answeredAt - spawnAt,
    cpu: trace.cpuAtAnswer ?? Number.NaN,
    zodLoadCpu: loadCpu(trace, "zod"),
    cosmosSdkLoadCpu: loadCpu(trace, "@azure/cosmos"),
  };
}
