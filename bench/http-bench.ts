import * as path from "node:path";
import type { RunFigure } from "./concurrent";
import { type JobProbe, runHttpJob } from "./http-driver";
import { type ServerProcess, startBareProcess, startHostProcess } from "./http-servers";
import { BENCH_FUNCTION_KEY, type BenchStack } from "./local-stack";
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

/** One round: the bare server and the service, back to back, on the same documents. */
export interface HttpRound {
  service: ServerFigure;
  bare: ServerFigure;
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

/** Reads the server's CPU time at the start and the end of the worker's requests. */
function cpuProbe(server: ServerProcess): JobProbe & { micros(): number } {
  let before = Number.NaN;
  let after = Number.NaN;
  return {
    started: () => {
      before = server.cpuMicros();
    },
    finished: () => {
      after = server.cpuMicros();
    },
    micros: () => after - before,
  };
}

async function send(
  server: ServerProcess,
  operation: "GET" | "PUT",
  names: Names,
  count: number,
  concurrency: number,
  expected: number,
): Promise<ServerFigure> {
  const probe = cpuProbe(server);
  const figure = await runHttpJob(
    {
      baseUrl: server.baseUrl,
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
    },
    probe,
  );
  return { ...figure, cpuMicrosPerRequest: probe.micros() / count };
}

/** A measurement with failed requests is a failed round: its figures would not compare. */
export function whole(figure: ServerFigure, server: string): ServerFigure {
  const failed = Object.entries(figure.failures);
  if (failed.length > 0) {
    throw new Error(`${server}: ${failed.map(([what, count]) => `${count} x ${what}`).join(", ")}`);
  }
  return figure;
}

interface Servers {
  service: ServerProcess;
  bare: ServerProcess;
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
    const slices: Record<keyof Servers, ServerFigure[]> = { service: [], bare: [] };
    for (let slice = 0; slice < SLICES; slice++) {
      // ABBA, and the other way round in every other round: neither always runs first.
      const bareFirst = (slice + round) % 2 === 1;
      for (const name of bareFirst ? (["bare", "service"] as const) : (["service", "bare"] as const)) {
        slices[name].push(await send(servers[name], method, existing, perSlice, concurrency, 200));
      }
    }
    const service = whole(combined(slices.service), servers.service.name);
    const bare = whole(combined(slices.bare), servers.bare.name);
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
  const service = await startHostProcess(stack.settings, profile("service"));
  try {
    const bare = await startBareProcess(stack.settings, profile("bare"));
    try {
      return await run({ service, bare }, sizes);
    } finally {
      await bare.stop();
    }
  } finally {
    await service.stop();
  }
}
