import * as path from "node:path";
import type { RunFigure } from "./concurrent";
import { type HttpDriver, startHttpDriver } from "./http-driver-process";
import { type ServerProcess, startBareProcess, startHostProcess } from "./http-servers";
import { BENCH_FUNCTION_KEY, type BenchStack } from "./local-stack";
import { snapshotCpu } from "./process-cpu";
import { type Rounds, runRounds } from "./rounds";

export interface HttpBenchSizes {
  /** Requests per round of GET and of PUT replace, for each server (sent in a few slices). */
  requests: number;
  /** Profiles created through HTTP for the create measurement (and read and replaced after). */
  creates: number;
  /** Requests in flight; GET and PUT replace are measured at each. */
  concurrencies: readonly number[];
  /** Rounds per operation and concurrency; each round measures both servers, taking turns in slices. */
  rounds: number;
  /** Where the two children write V8 CPU profiles (node --cpu-prof), into service/ and bare/, when set. */
  cpuProfileDir?: string;
}

/** One measurement of one server: throughput, and the server process's CPU time per request. */
export interface ServerFigure extends RunFigure {
  /** The server process's CPU time (user + system, every thread) per request sent, in microseconds. */
  cpuMicrosPerRequest: number;
}

/** A server's figure with the driver's CPU over the same requests: what shows it was not the limit. */
export interface DrivenFigure extends ServerFigure {
  /** The driver process's CPU time per request sent, in microseconds. */
  driverMicrosPerRequest: number;
  /** The driver's CPU time over the wall time: 1 would be a whole core, and the driver the limit. */
  driverCoreShare: number;
  /** The Cosmos server's CPU time per request sent (it serves both servers), in microseconds. */
  cosmosMicrosPerRequest: number;
}

/** One round: the bare server and the service, back to back, on the same documents. */
export interface HttpRound {
  service: DrivenFigure;
  bare: DrivenFigure;
  /** Service req/s over bare req/s. */
  ratio: number;
}

/** What the service must reach, as a share of bare's requests per second. */
export const HTTP_GOALS = { GET: 0.9, "PUT replace": 0.85 } as const;

export type ComparedOperation = keyof typeof HTTP_GOALS;

export interface HttpComparison {
  operation: ComparedOperation;
  concurrency: number;
  goal: number;
  rounds: Rounds<HttpRound>;
}

/** Creates through the service alone (a create also changes the quota ledger in a batch). */
export interface HttpCreate {
  concurrency: number;
  figure: ServerFigure;
}

export interface HttpBenchResult {
  comparisons: HttpComparison[];
  creates: HttpCreate[];
}

const CONTENT = JSON.stringify({ AllowDBUserOverride: "1", Client_ID: "ExampleClientID", App_ID: "bench" });
const PUT_BODY = JSON.stringify({ authenticationProfileContent: CONTENT });

interface Names {
  prefix: string;
  modulo?: number;
}

async function send(
  target: Target,
  operation: "GET" | "PUT",
  names: Names,
  count: number,
  concurrency: number,
  expected: number,
): Promise<DrivenFigure> {
  const { figure, serverMicros, driverMicros, cosmosMicros } = await target.driver.run({
    baseUrl: target.server.baseUrl,
    serverPid: target.server.pid,
    ...(target.cosmosPid !== undefined && { cosmosPid: target.cosmosPid }),
    method: operation,
    pathPrefix: `/authenticationProfiles/${names.prefix}`,
    ...(names.modulo !== undefined && { modulo: names.modulo }),
    count,
    concurrency,
    headers: {
      "x-functions-key": BENCH_FUNCTION_KEY,
      ...(operation === "PUT" && { "content-type": "application/json" }),
    },
    ...(operation === "PUT" && { body: PUT_BODY }),
    expected,
  });
  return {
    ...figure,
    cpuMicrosPerRequest: serverMicros / count,
    driverMicrosPerRequest: driverMicros / count,
    driverCoreShare: driverMicros / (figure.seconds * 1e6),
    cosmosMicrosPerRequest: cosmosMicros / count,
  };
}

/** A measurement with failed requests is a failed round: its figures would not compare. */
export function whole<T extends ServerFigure>(figure: T, server: string): T {
  const failed = Object.entries(figure.failures);
  if (failed.length > 0) {
    throw new Error(`${server}: ${failed.map(([what, count]) => `${count} x ${what}`).join(", ")}`);
  }
  return figure;
}

/** A server and the driver that sends it requests (one driver for both servers). */
interface Target {
  server: ServerProcess;
  driver: HttpDriver;
  cosmosPid?: number;
}

interface Servers {
  service: Target;
  bare: Target;
}

/** Slices of a round: bare and service take turns (ABBA), so both see the same background load. */
const SLICES = 4;

/** The slices of one server as one figure: requests over time, CPU over requests, failures summed. */
export function combined(slices: ServerFigure[]): ServerFigure {
  const count = slices.reduce((sum, slice) => sum + slice.count, 0);
  const seconds = slices.reduce((sum, slice) => sum + slice.seconds, 0);
  const failures: Record<string, number> = {};
  for (const slice of slices) {
    for (const [what, n] of Object.entries(slice.failures)) failures[what] = (failures[what] ?? 0) + n;
  }
  const failed = Object.values(failures).reduce((sum, n) => sum + n, 0);
  const cpu = slices.reduce((sum, slice) => sum + slice.cpuMicrosPerRequest * slice.count, 0);
  return {
    count,
    seconds,
    perSecond: (count - failed) / seconds,
    failures,
    cpuMicrosPerRequest: cpu / count,
  };
}

/** combined, with the driver's CPU over all the slices: per request, and over their wall time. */
export function combinedDriven(slices: DrivenFigure[]): DrivenFigure {
  const figure = combined(slices);
  const sum = (pick: (slice: DrivenFigure) => number) =>
    slices.reduce((total, slice) => total + pick(slice) * slice.count, 0);
  const driver = sum((slice) => slice.driverMicrosPerRequest);
  return {
    ...figure,
    driverMicrosPerRequest: driver / figure.count,
    driverCoreShare: driver / (figure.seconds * 1e6),
    cosmosMicrosPerRequest: sum((slice) => slice.cosmosMicrosPerRequest) / figure.count,
  };
}

function compare(
  servers: Servers,
  operation: ComparedOperation,
  concurrency: number,
  sizes: HttpBenchSizes,
  existing: Names,
): Promise<HttpComparison> {
  const method = operation === "GET" ? "GET" : "PUT";
  const perSlice = Math.max(1, Math.ceil(sizes.requests / SLICES));
  return runRounds(sizes.rounds, async (round) => {
    const slices: Record<keyof Servers, DrivenFigure[]> = { service: [], bare: [] };
    for (let slice = 0; slice < SLICES; slice++) {
      // ABBA, and the other way round in every other round: neither always runs first.
      const bareFirst = (slice + round) % 2 === 1;
      for (const name of bareFirst ? (["bare", "service"] as const) : (["service", "bare"] as const)) {
        slices[name].push(await send(servers[name], method, existing, perSlice, concurrency, 200));
      }
    }
    const service = whole(combinedDriven(slices.service), servers.service.server.name);
    const bare = whole(combinedDriven(slices.bare), servers.bare.server.name);
    return { service, bare, ratio: service.perSecond / bare.perSecond };
  }).then((rounds) => ({ operation, concurrency, goal: HTTP_GOALS[operation], rounds }));
}

async function warmUp(servers: Servers, existing: Names): Promise<void> {
  for (const server of [servers.bare, servers.service]) {
    await send(server, "GET", existing, 500, 16, 200);
    await send(server, "PUT", existing, 300, 16, 200);
  }
}

async function run(servers: Servers, sizes: HttpBenchSizes): Promise<HttpBenchResult> {
  // Warm-up of the service's create path (JIT, the quota ledger document), then the creates.
  await send(servers.service, "PUT", { prefix: "warm-" }, 50, 16, 201);
  const concurrency = Math.max(...sizes.concurrencies);
  const creates: HttpCreate[] = [
    {
      concurrency,
      figure: await send(servers.service, "PUT", { prefix: "bench-" }, sizes.creates, concurrency, 201),
    },
  ];
  const serial = Math.max(1, Math.floor(sizes.creates / 2));
  creates.push({
    concurrency: 1,
    figure: await send(servers.service, "PUT", { prefix: "serial-" }, serial, 1, 201),
  });

  // Reads and replaces of the profiles just created, by both servers.
  const existing: Names = { prefix: "bench-", modulo: sizes.creates };
  await warmUp(servers, existing);
  const comparisons: HttpComparison[] = [];
  for (const inFlight of sizes.concurrencies) {
    for (const operation of Object.keys(HTTP_GOALS) as ComparedOperation[]) {
      comparisons.push(await compare(servers, operation, inFlight, sizes, existing));
    }
  }
  return { comparisons, creates };
}

/** The stack's Cosmos server, a child of this process: its CPU is part of every request of both servers. */
function cosmosServerPid(): number | undefined {
  for (const [pid, { name }] of snapshotCpu()) if (name.endsWith("cosmos-server-main.js")) return pid;
  return undefined;
}

/**
 * AuthenticationProfile GET and PUT replace through the service next to the thinnest server that
 * does the same Cosmos work (bench/bare-server.ts), each a child process of its own on the stack's
 * Cosmos server (the host a second one, besides the stack's in-process host, on the same settings),
 * driven by the same client on a worker thread of this process. Each round measures both, taking
 * turns in slices, and reports requests per second and each process's CPU time per request (from
 * /proc). Creates go through the service alone. CPU profiles of both: `cpuProfileDir`.
 */
export async function benchHttp(stack: BenchStack, sizes: HttpBenchSizes): Promise<HttpBenchResult> {
  const profile = (server: string) =>
    sizes.cpuProfileDir === undefined
      ? []
      : ["--cpu-prof", `--cpu-prof-dir=${path.join(sizes.cpuProfileDir, server)}`];
  const driver = await startHttpDriver();
  try {
    const service = await startHostProcess(stack.settings, profile("service"));
    try {
      const bare = await startBareProcess(stack.settings, profile("bare"));
      try {
        const cosmosPid = cosmosServerPid();
        const target = (server: ServerProcess): Target => ({
          server,
          driver,
          ...(cosmosPid !== undefined && { cosmosPid }),
        });
        return await run({ service: target(service), bare: target(bare) }, sizes);
      } finally {
        await bare.stop();
      }
    } finally {
      await service.stop();
    }
  } finally {
    await driver.stop();
  }
}
