import * as path from "node:path";
import { positiveInteger } from "./env";
import { type HttpDriver, startHttpDriver } from "./http-driver-process";
import { type ServerProcess, startBareProcess, startHostProcess } from "./http-servers";
import { BENCH_FUNCTION_KEY, startBenchStack } from "./local-stack";
import { formatRange } from "./rounds";

/**
 * Two builds side by side, for a before/after measurement of a change to the HTTP path: any number
 * of servers, each the local host or the bare server of a build (a `dist` folder: this one, or a
 * copy made before the change, kept inside the repository so it finds node_modules), measured in
 * turns as the HTTP part measures its two (slices, each round starting with another server, every
 * other slice in reverse order), on one stack and one driver. Prints each server's requests per
 * second and CPU time per request (/proc), per round and as a range. Not part of `npm run bench`:
 *
 *   SIDE_BY_SIDE="after:host:dist,before:host:.local/before/dist,bare:bare:dist" \
 *     node dist/bench/http-side-by-side.js
 *
 * SIDE_BY_SIDE_OPS (GET,PUT), SIDE_BY_SIDE_CONCURRENCY (16), SIDE_BY_SIDE_ROUNDS (3),
 * SIDE_BY_SIDE_REQUESTS (4,000 a server a round, in 4 slices).
 */
interface Spec {
  name: string;
  kind: "host" | "bare";
  dist: string;
}

const CREATES = 300;
const SLICES = 4;
const CONTENT = JSON.stringify({ AllowDBUserOverride: "1", Client_ID: "ExampleClientID", App_ID: "bench" });
const PUT_BODY = JSON.stringify({ authenticationProfileContent: CONTENT });

function specs(text: string): Spec[] {
  return text.split(",").map((entry) => {
    const [name, kind, dist] = entry.split(":");
    if (!name || (kind !== "host" && kind !== "bare") || !dist) {
      throw new Error(`SIDE_BY_SIDE: '${entry}' is not name:host|bare:dist`);
    }
    return { name, kind, dist: path.resolve(dist) };
  });
}

async function start(spec: Spec, settings: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const server =
    spec.kind === "host"
      ? await startHostProcess(settings, [], path.join(spec.dist, "dev", "local-host-main.js"))
      : await startBareProcess(settings, [], path.join(spec.dist, "bench", "bare-server.js"));
  return { ...server, name: spec.name };
}

interface Sums {
  count: number;
  seconds: number;
  cpu: number;
}

async function send(
  driver: HttpDriver,
  server: ServerProcess,
  method: "GET" | "PUT",
  job: { count: number; concurrency: number; expected: number; prefix?: string; modulo?: number },
): Promise<Sums> {
  const { figure, serverMicros } = await driver.run({
    baseUrl: server.baseUrl,
    serverPid: server.pid,
    method,
    pathPrefix: `/authenticationProfiles/${job.prefix ?? "side-"}`,
    ...(job.modulo !== 0 && { modulo: job.modulo ?? CREATES }),
    count: job.count,
    concurrency: job.concurrency,
    headers: {
      "x-functions-key": BENCH_FUNCTION_KEY,
      ...(method === "PUT" && { "content-type": "application/json" }),
    },
    ...(method === "PUT" && { body: PUT_BODY }),
    expected: job.expected,
  });
  const failed = Object.entries(figure.failures);
  if (failed.length > 0) throw new Error(`${server.name}: ${JSON.stringify(figure.failures)}`);
  return { count: job.count, seconds: figure.seconds, cpu: serverMicros };
}

/** One round: every server in turns, slice by slice, the order turning with the slice and round. */
async function round(
  driver: HttpDriver,
  servers: ServerProcess[],
  method: "GET" | "PUT",
  index: number,
  sizes: { requests: number; concurrency: number },
): Promise<Map<string, Sums>> {
  const sums = new Map(servers.map((server) => [server.name, { count: 0, seconds: 0, cpu: 0 }]));
  for (let slice = 0; slice < SLICES; slice++) {
    const turn = (slice + index) % servers.length;
    let order = [...servers.slice(turn), ...servers.slice(0, turn)];
    if ((slice + index) % 2 === 1) order = order.reverse();
    for (const server of order) {
      const job = {
        count: Math.ceil(sizes.requests / SLICES),
        concurrency: sizes.concurrency,
        expected: 200,
      };
      const figure = await send(driver, server, method, job);
      const sum = sums.get(server.name) as Sums;
      sum.count += figure.count;
      sum.seconds += figure.seconds;
      sum.cpu += figure.cpu;
    }
  }
  return sums;
}

async function compare(driver: HttpDriver, servers: ServerProcess[]): Promise<void> {
  const concurrency = positiveInteger("SIDE_BY_SIDE_CONCURRENCY", 16);
  const sizes = { requests: positiveInteger("SIDE_BY_SIDE_REQUESTS", 4000), concurrency };
  const rounds = positiveInteger("SIDE_BY_SIDE_ROUNDS", 3);
  for (const method of (process.env.SIDE_BY_SIDE_OPS ?? "GET,PUT").split(",") as ("GET" | "PUT")[]) {
    const rows = new Map(servers.map((server) => [server.name, [] as { perSecond: number; cpu: number }[]]));
    for (let index = 0; index < rounds; index++) {
      const sums = await round(driver, servers, method, index, sizes);
      const line = [...sums].map(([name, sum]) => {
        const row = { perSecond: sum.count / sum.seconds, cpu: sum.cpu / sum.count };
        rows.get(name)?.push(row);
        return `${name} ${row.perSecond.toFixed(0)}/s ${row.cpu.toFixed(0)} us`;
      });
      console.log(`${method} ${concurrency} in flight, round ${index + 1}: ${line.join(" | ")}`);
    }
    for (const [name, values] of rows) {
      const whole = (value: number) => value.toFixed(0);
      console.log(
        `  ${method} ${name}: CPU ${formatRange(
          values.map((row) => row.cpu),
          whole,
        )} us a request, ${formatRange(
          values.map((row) => row.perSecond),
          whole,
        )} req/s`,
      );
    }
  }
}

async function main(): Promise<void> {
  const given = specs(process.env.SIDE_BY_SIDE ?? "");
  const stack = await startBenchStack();
  const driver = await startHttpDriver();
  const servers: ServerProcess[] = [];
  try {
    for (const spec of given) servers.push(await start(spec, stack.settings));
    const creator = servers[given.findIndex((spec) => spec.kind === "host")];
    if (creator === undefined) throw new Error("SIDE_BY_SIDE names no host to create the profiles");
    await send(driver, creator, "PUT", { count: CREATES, concurrency: 16, expected: 201, modulo: 0 });
    for (const server of servers) {
      await send(driver, server, "GET", { count: 1000, concurrency: 16, expected: 200 });
      await send(driver, server, "PUT", { count: 600, concurrency: 16, expected: 200 });
    }
    await compare(driver, servers);
  } finally {
    for (const server of servers) await server.stop();
    await driver.stop();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
