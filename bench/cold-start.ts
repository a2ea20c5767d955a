import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ensureDatabase } from "../dev/ensure-database";
import { projectRoot } from "../dev/local-paths";
import { freePort } from "../dev/ports";
import { startStack } from "../dev/stack";
import { loadConfig } from "../src/config";
import { type Rounds, runRounds } from "./rounds";

/**
 * Cold start, as a new Functions instance sees it: (a) a fresh `node` loading every entry point
 * package.json's main names (dist/functions/*.js), as the worker does before the first invocation;
 * (b) the local host (dist/dev/local-host-main.js) spawned as a process of its own, as under
 * `npm start`, until it answers its first request on a route that reads Cosmos DB, with the Cosmos
 * server and Azurite already running; (c) what `node -e ""` costs from spawn to exit, the floor
 * under both. Every figure comes from a fresh process per round.
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
}

/** (b): from just before spawn to the end of the first answer with the expected status. */
export interface FirstRequestRound {
  firstRequestMs: number;
  /** How many attempts it took (refused connections while the host was still loading). */
  attempts: number;
}

export interface ColdStartFigures {
  rounds: number;
  /** The route (b) asks, and what it answers. */
  route: string;
  require: Rounds<RequireRound>;
  firstRequest: Rounds<FirstRequestRound>;
  /** (c): milliseconds from spawn to exit of `node -e ""`. */
  nodeFloor: Rounds<number>;
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

/** Settings the entry points validate at load, for (a): no backing service is reached by a require. */
function requireSettings(): Record<string, string> {
  return {
    COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
    COSMOS_KEY: "cold-start-key",
    AzureWebJobsStorage: "UseDevelopmentStorage=true",
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  };
}

/** The environment of a measured child: ours, without the Application Insights export (not local). */
function childEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const { APPLICATIONINSIGHTS_CONNECTION_STRING: _off, ...env } = process.env;
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
process.stdout.write(JSON.stringify({ requireMs, uptimeMs, rssMb, modules: Object.keys(require.cache).length }));
`;

function entryPoints(distDir: string): string[] {
  const directory = path.join(distDir, "functions");
  return readdirSync(directory)
    .filter((file) => file.endsWith(".js"))
    .sort()
    .map((file) => path.join(directory, file));
}

/** Runs a child to its end; its stdout, or an error with the end of its stderr. */
function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
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

export async function measureNodeFloor(): Promise<number> {
  const start = performance.now();
  await runChild(["-e", ""], process.env);
  return performance.now() - start;
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

/** (b): spawns the local host with `settings` and asks PROBE_PATH until it answers PROBE_STATUS. */
export async function measureFirstRequest(
  distDir: string,
  settings: Record<string, string>,
): Promise<FirstRequestRound> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${PROBE_PATH}`;
  const env = childEnv({ ...settings, PORT: String(port) });
  const start = performance.now();
  const child = spawn(process.execPath, [path.join(distDir, "dev", "local-host-main.js")], {
    env,
    cwd: projectRoot(),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    for (let attempts = 1; performance.now() - start < FIRST_REQUEST_TIMEOUT_MS; attempts++) {
      const status = await get(url);
      if (status === PROBE_STATUS) return { firstRequestMs: performance.now() - start, attempts };
      if (child.exitCode !== null) throw new Error(`the host exited (${child.exitCode}): ${stderr.trim()}`);
      if (status !== undefined) throw new Error(`GET ${PROBE_PATH} answered ${status}, not ${PROBE_STATUS}`);
      await delay(RETRY_MS);
    }
    throw new Error(`no answer within ${FIRST_REQUEST_TIMEOUT_MS} ms`);
  } finally {
    await stopChild(child);
  }
}

/** The Cosmos server and Azurite (children, in memory), a fresh database, and the settings to reach them. */
async function startBackingServices(): Promise<{ settings: Record<string, string>; stop(): Promise<void> }> {
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
    return { rounds, route, require: requires, firstRequest, nodeFloor };
  } finally {
    await backing.stop();
  }
}
