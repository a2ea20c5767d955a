import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import * as http from "node:http";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ensureDatabase } from "../dev/ensure-database";
import { projectRoot } from "../dev/local-paths";
import { freePort } from "../dev/ports";
import { startStack } from "../dev/stack";
import { loadConfig } from "../src/config";
import { type ColdStartSteps, coldStartSteps } from "./cold-start-steps";
import type { ColdStartTrace } from "./cold-start-trace";
import { type Rounds, runRounds } from "./rounds";

/**
 * Cold start, as a new Functions instance sees it: (a) a fresh `node` loading every entry point
 * package.json's main names (dist/functions/*.js), as the worker does before the first invocation;
 * (b) the local host (dist/dev/local-host-main.js) spawned as a process of its own, as under
 * `npm start`, until it answers its first request on a route that reads Cosmos DB, with the Cosmos
 * server and Azurite already running, each step of the way timed by a preload
 * (bench/cold-start-trace.ts); (c) what a `node -e` costs from spawn to exit, and its RSS: the floor
 * under both. Every figure comes from a fresh process per round, of the Node.js running the bench
 * (process.execPath): `npm run bench:node22` runs it on the Node.js that infra/ deploys.
 */

/** (a): inside the child, from before the first require to after the last. */
export interface RequireRound {
  /** performance.now() around the requires. */
  requireMs: number;
  /** process.uptime() after the last require: Node's own start plus the requires. */
  uptimeMs: number;
  /** process.memoryUsage().rss after the last require. */
  rssMb: number;
  /** How many modules were loaded (require.cache). */
  modules: number;
  /** Of them, zod's. */
  zodModules: number;
}

/** (b): from just before spawn to the end of the first answer with the expected status. */
export interface FirstRequestRound {
  firstRequestMs: number;
  /** How many attempts it took (refused connections while the host was still loading). */
  attempts: number;
  /** The way there, step by step (the parts add up to firstRequestMs). */
  steps: ColdStartSteps;
}

export interface ColdStartFigures {
  rounds: number;
  /** The route (b) asks, and what it answers. */
  route: string;
  require: Rounds<RequireRound>;
  firstRequest: Rounds<FirstRequestRound>;
  /** (c): the floor under both. */
  nodeFloor: Rounds<NodeFloorRound>;
  /** The Node.js every measured child ran on (the bench's own: run the bench with another to measure that). */
  nodeVersion: string;
}

/** (c): a `node -e` that only prints its RSS, from spawn to exit, and that RSS: Node with nothing of ours. */
export interface NodeFloorRound {
  ms: number;
  rssMb: number;
}

export interface ColdStartOptions {
  /** The built tree to measure: dist/ of the repository unless given (another build, to compare). */
  distDir?: string;
}

const FUNCTION_KEY = "cold-start-function-key";
/** A profile that does not exist: GET answers 404 after a Cosmos DB point read. */
const PROBE_PATH = "/authenticationProfiles/cold-start-probe";
const PROBE_STATUS = 404;
/** How long one round may wait for the host's first answer. */
const FIRST_REQUEST_TIMEOUT_MS = 30_000;
const RETRY_MS = 5;

/**
 * Settings the entry points validate at load, for (a), as infra/ deploys them: the managed identity
 * (no keys) and callers with Entra ID tokens. No backing service is reached by a require.
 */
function requireSettings(): Record<string, string> {
  return {
    COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
    AzureWebJobsStorage__accountName: "coldstartstorage",
    AUTH_MODE: "entra",
    AUTH_AUTHORITY: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
    AUTH_AUDIENCE: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  };
}

/**
 * The environment of a measured child: ours without the Application Insights export (not local)
 * and without settings of ours the child's would not replace (a COSMOS_KEY or AzureWebJobsStorage
 * in the bench's environment would turn (a)'s identity settings back into keys).
 */
function childEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const {
    APPLICATIONINSIGHTS_CONNECTION_STRING: _off,
    COSMOS_KEY: _key,
    AzureWebJobsStorage: _storage,
    ...env
  } = process.env;
  return { ...env, ...settings };
}

/** What the child of (a) runs: times the requires, prints one JSON line. */
const REQUIRE_SCRIPT = `
const entries = JSON.parse(process.argv[1]);
const start = performance.now();
for (const entry of entries) require(entry);
const requireMs = performance.now() - start;
const uptimeMs = process.uptime() * 1000;
const rssMb = process.memoryUsage().rss / 1048576;
const modules = Object.keys(require.cache);
const zodModules = modules.filter((file) => file.includes("/node_modules/zod/")).length;
process.stdout.write(JSON.stringify({ requireMs, uptimeMs, rssMb, modules: modules.length, zodModules }));
`;

function entryPoints(distDir: string): string[] {
  const directory = path.join(distDir, "functions");
  return readdirSync(directory)
    .filter((file) => file.endsWith(".js"))
    .sort()
    .map((file) => path.join(directory, file));
}

/** Runs a child to its end; its stdout, or an error with the end of its stderr. */
export function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env,
      cwd: projectRoot(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(`exited with ${signal ?? code}: ${stderr.trim().split("\n").slice(-3).join(" | ")}`),
        );
    });
  });
}

export async function measureRequire(distDir: string): Promise<RequireRound> {
  const out = await runChild(
    ["-e", REQUIRE_SCRIPT, JSON.stringify(entryPoints(distDir))],
    childEnv(requireSettings()),
  );
  return JSON.parse(out) as RequireRound;
}

/** fs.writeSync, not process.stdout: Node makes its stdout stream on first use, 20 ms and more here. */
const NODE_FLOOR_SCRIPT = 'require("node:fs").writeSync(1, String(process.memoryUsage().rss))';

export async function measureNodeFloor(): Promise<NodeFloorRound> {
  const start = performance.now();
  const out = await runChild(["-e", NODE_FLOOR_SCRIPT], process.env);
  return { ms: performance.now() - start, rssMb: Number(out) / 1048576 };
}

/** One GET; the status, or undefined when the connection failed (not listening yet). */
function get(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = http.get(
      url,
      { headers: { "x-functions-key": FUNCTION_KEY }, agent: false },
      (response) => {
        response.resume();
        response.once("end", () => resolve(response.statusCode));
        response.once("error", () => resolve(undefined));
      },
    );
    request.once("error", () => resolve(undefined));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Asks `url` until it answers `PROBE_STATUS`; how many attempts it took. */
async function awaitFirstAnswer(url: string, child: ChildProcess, stderr: () => string, start: number) {
  for (let attempts = 1; performance.now() - start < FIRST_REQUEST_TIMEOUT_MS; attempts++) {
    const status = await get(url);
    if (status === PROBE_STATUS) return attempts;
    if (child.exitCode !== null) throw new Error(`the host exited (${child.exitCode}): ${stderr().trim()}`);
    if (status !== undefined) throw new Error(`GET ${PROBE_PATH} answered ${status}, not ${PROBE_STATUS}`);
    await delay(RETRY_MS);
  }
  throw new Error(`no answer within ${FIRST_REQUEST_TIMEOUT_MS} ms`);
}

/**
 * (b): spawns the local host with `settings` and asks PROBE_PATH until it answers PROBE_STATUS.
 * The host runs with the trace preload (dist/bench/cold-start-trace.js), which writes its notes to
 * a file as the host exits: the steps are worked out from them once it has.
 */
export async function measureFirstRequest(
  distDir: string,
  settings: Record<string, string>,
): Promise<FirstRequestRound> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${PROBE_PATH}`;
  const traceFile = path.join(tmpdir(), `cold-start-trace-${randomUUID()}.json`);
  const env = childEnv({ ...settings, PORT: String(port), COLD_START_TRACE_FILE: traceFile });
  const args = ["--require", path.join(distDir, "bench", "cold-start-trace.js")];
  // The wall clock, as the trace's times (both processes read it alike); durations from the monotonic one.
  const spawnAt = Date.now();
  const start = performance.now();
  const child = spawn(process.execPath, [...args, path.join(distDir, "dev", "local-host-main.js")], {
    env,
    cwd: projectRoot(),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const attempts = await awaitFirstAnswer(url, child, () => stderr, start);
    const firstRequestMs = performance.now() - start;
    await stopChild(child);
    const trace = JSON.parse(readFileSync(traceFile, "utf8")) as ColdStartTrace;
    return { firstRequestMs, attempts, steps: coldStartSteps(trace, spawnAt, spawnAt + firstRequestMs) };
  } finally {
    await stopChild(child);
    rmSync(traceFile, { force: true });
  }
}

/** The Cosmos server and Azurite (children, in memory), a fresh database, and the settings to reach them. */
export async function startBackingServices(): Promise<{
  settings: Record<string, string>;
  stop(): Promise<void>;
}> {
  const stack = await startStack(
    {
      FUNCTION_KEY,
      MASTER_KEY: `${FUNCTION_KEY}-master`,
      // The cold start is measured with the function key (no local issuer runs).
      AUTH_MODE: "keys",
      COSMOS_DATABASE: `cold-${randomUUID().slice(0, 8)}`,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    },
    {
      ports: "free",
      persistent: false,
      cosmos: "child",
      serviceBus: "none",
      host: "none",
      childOutput: "errors",
    },
  );
  try {
    const settings = Object.fromEntries(
      Object.entries(stack.plan.settings).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    await ensureDatabase(loadConfig(settings));
    return { settings, stop: async () => void (await stack.stop()) };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/**
 * `rounds` rounds of each figure, each in fresh processes; the backing services start once, before
 * the first round, and stop at the end. A round that fails is reported by runRounds, not dropped.
 */
export async function benchColdStart(
  rounds: number,
  options: ColdStartOptions = {},
): Promise<ColdStartFigures> {
  const distDir = options.distDir ?? path.join(projectRoot(), "dist");
  const nodeFloor = await runRounds(rounds, () => measureNodeFloor());
  const requires = await runRounds(rounds, () => measureRequire(distDir));
  const backing = await startBackingServices();
  try {
    // One unmeasured start first: the Cosmos server's first request (and the disk cache) is not the host's.
    await measureFirstRequest(distDir, backing.settings).catch(() => undefined);
    const firstRequest = await runRounds(rounds, () => measureFirstRequest(distDir, backing.settings));
    const route = `GET ${PROBE_PATH} (${PROBE_STATUS}: a Cosmos DB point read)`;
    return { rounds, route, require: requires, firstRequest, nodeFloor, nodeVersion: process.version };
  } finally {
    await backing.stop();
  }
}
