import { writeSync } from "node:fs";

import Module = require("node:module");

import * as path from "node:path";
import { type HttpInvocation, type HttpResult, loadFunctionApp } from "../dev/functions-worker";
import { type RequestFacts, recordHttpRequests } from "./http-requests";

/** One step of bench/functions-worker-main.js: an HTTP invocation of a function, or a queue message. */
export type WorkerStep =
  | { http: HttpInvocation & { name: string } }
  | { queue: { name: string; message: string } };

/** What bench/functions-worker-main.js prints: the load, what it registered, and each step's result. */
export interface WorkerReport {
  /** performance.now() around loading the entry points; and process.uptime() after it. */
  loadMs: number;
  uptimeMs: number;
  programmingModel: string;
  registered: string[];
  /** The files under the package folder compiled by the end of the load, relative to it; and of the steps. */
  loadedAtStart: string[];
  loadedAtEnd: string[];
  /** Each step's time, answer (HTTP) or error, and the HTTP requests the app sent meanwhile. */
  steps: { ms: number; http?: HttpResult; error?: string; requests: string[]; responses: RequestFacts[] }[];
}

/**
 * `node dist/bench/functions-worker-main.js <package folder> '<steps as JSON>'`: loads the package as
 * the Functions worker does (dev/functions-worker.ts), runs the steps in order and prints one JSON
 * line: how long the load took, what was registered, and each step's result. Used by the staged
 * package's test and the bench, each in a fresh process as a new instance would be.
 */
/** What each step sends over HTTP (bench/http-requests.ts). */
const sent = recordHttpRequests();

/**
 * Every CommonJS file Node compiles, in order. Compiled, not cached: a module stood in for until
 * first read (src/common/load-on-first-read.ts) is in require.cache without having been loaded.
 */
const compiled: string[] = [];
const moduleInternals = Module.prototype as unknown as {
  _compile(content: string, filename: string): unknown;
};
const compile = moduleInternals._compile;
moduleInternals._compile = function (this: unknown, content: string, filename: string) {
  compiled.push(filename);
  return compile.call(this, content, filename);
};

function packageFilesLoaded(root: string): string[] {
  return compiled
    .filter((file) => file.startsWith(path.resolve(root) + path.sep))
    .map((file) => path.relative(root, file).replaceAll(path.sep, "/"));
}

async function main(): Promise<void> {
  const [root, stepsJson] = process.argv.slice(2);
  if (!root) throw new Error("usage: functions-worker-main.js <package folder> [steps as JSON]");
  const start = performance.now();
  const app = loadFunctionApp(root);
  const report: WorkerReport = {
    loadMs: performance.now() - start,
    uptimeMs: process.uptime() * 1000,
    programmingModel: app.programmingModel,
    registered: [...app.functions.keys()],
    loadedAtStart: packageFilesLoaded(root),
    loadedAtEnd: [],
    steps: [],
  };
  for (const step of JSON.parse(stepsJson ?? "[]") as WorkerStep[]) {
    const stepStart = performance.now();
    sent.take();
    try {
      if ("http" in step) {
        const { name, ...request } = step.http;
        const http = await app.invokeHttp(name, request);
        report.steps.push({ ms: performance.now() - stepStart, http, ...sent.take() });
      } else {
        await app.invokeQueue(step.queue.name, step.queue.message);
        report.steps.push({ ms: performance.now() - stepStart, ...sent.take() });
      }
    } catch (error) {
      report.steps.push({
        ms: performance.now() - stepStart,
        ...sent.take(),
        error: String((error as Error).stack ?? error),
      });
    }
  }
  report.loadedAtEnd = packageFilesLoaded(root);
  // Synchronously: process.exit would cut an asynchronous write to a pipe short.
  writeSync(1, `${JSON.stringify(report)}\n`);
  // The app's clients (Cosmos DB keep-alive sockets, timers) would keep a finished probe alive.
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
