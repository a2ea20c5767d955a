import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import type { ClientRequest, IncomingMessage, ServerResponse } from "node:http";
import * as http from "node:http";
import { Module } from "node:module";

/**
 * Loaded with `node --require` into the local host the cold-start bench spawns (never into the
 * product): it notes when each step of the way to the first answer happened, and writes the notes
 * to COLD_START_TRACE_FILE as the process exits. Times are milliseconds since the epoch, so the
 * bench can set them against its spawn: the monotonic clock, anchored once to the wall clock
 * (Date.now(), which both processes read alike; performance.timeOrigin can differ by milliseconds).
 * It adds a function call to each require and a listener to Node's HTTP diagnostics channels.
 */
export interface ColdStartTrace {
  /** This module starting: Node's own start is over, the first user code runs. */
  preload: number;
  /** Each package of TRACED_PACKAGES the process loaded: first require to its return, and the CPU it took (ms). */
  loads: Record<string, { start: number; end: number; cpu: number }>;
  /** The host's server listening. */
  listening?: number;
  /** The first request the host took, and when its answer was sent. */
  requestIn?: number;
  responseOut?: number;
  /** The process's CPU time (user + system, ms) when the first answer was sent: less noisy than the wall clock. */
  cpuAtAnswer?: number;
  /** Requests the host made to Cosmos DB while it answered the first one, in order. */
  cosmos: { path: string; start: number; end?: number }[];
}

export const TRACED_PACKAGES = ["zod", "@azure/functions", "@azure/cosmos", "@azure/storage-queue"];

const anchor = Date.now() - performance.now();
const now = () => anchor + performance.now();
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function traceLoads(trace: ColdStartTrace): void {
  // Module._load is Node's internal require; wrapping it is for this measurement only.
  const internal = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = internal._load;
  internal._load = function (this: unknown, request: string, ...rest: unknown[]) {
    if (!TRACED_PACKAGES.includes(request) || trace.loads[request] !== undefined) {
      return load.call(this, request, ...rest);
    }
    const start = now();
    const cpu = cpuMs();
    try {
      return load.call(this, request, ...rest);
    } finally {
      trace.loads[request] = { start, end: now(), cpu: cpuMs() - cpu };
    }
  };
}

function traceHttp(trace: ColdStartTrace, cosmosHost: string | undefined): void {
  const listen = http.Server.prototype.listen;
  http.Server.prototype.listen = function (this: http.Server, ...args: unknown[]) {
    this.once("listening", () => {
      trace.listening ??= now();
    });
    return (listen as (...a: unknown[]) => http.Server).apply(this, args);
  };
  subscribe("http.server.request.start", () => {
    trace.requestIn ??= now();
  });
  subscribe("http.server.response.finish", (message) => {
    if ((message as { response: ServerResponse }).response && trace.responseOut === undefined) {
      trace.responseOut = now();
      trace.cpuAtAnswer = cpuMs();
    }
  });
  const cosmos = new Map<ClientRequest, ColdStartTrace["cosmos"][number]>();
  subscribe("http.client.request.start", (message) => {
    const { request } = message as { request: ClientRequest };
    if (trace.responseOut !== undefined || request.getHeader("host") !== cosmosHost) return;
    const call = { path: request.path, start: now() };
    trace.cosmos.push(call);
    cosmos.set(request, call);
  });
  subscribe("http.client.response.finish", (message) => {
    const { request } = message as { request: ClientRequest; response: IncomingMessage };
    const call = cosmos.get(request);
    if (call) call.end = now();
  });
}

const file = process.env.COLD_START_TRACE_FILE;
if (file) {
  const trace: ColdStartTrace = { preload: now(), loads: {}, cosmos: [] };
  const endpoint = process.env.COSMOS_ENDPOINT;
  traceLoads(trace);
  traceHttp(trace, endpoint ? new URL(endpoint).host : undefined);
  process.once("exit", () => writeFileSync(file, JSON.stringify(trace)));
}
