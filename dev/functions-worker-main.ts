import { subscribe } from "node:diagnostics_channel";
import { writeSync } from "node:fs";
import type { ClientRequest, IncomingMessage } from "node:http";

import Module = require("node:module");

import * as path from "node:path";
import { loadFunctionApp, type RequestFacts, type WorkerReport, type WorkerStep } from "./functions-worker";

/**
 * `node dist/dev/functions-worker-main.js <package folder> '<steps as JSON>'`: loads the package as
 * the Functions worker does (dev/functions-worker.ts), runs the steps in order and prints one JSON
 * line: how long the load took, what was registered, and each step's result. Used by the staged
 * package's test and the bench, each in a fresh process as a new instance would be.
 */
/**
 * The HTTP requests the app sends while a step runs (Node's `http.client.request.start` channel):
 * `METHOD host:port/path`, the query left off (a SAS token is one). What a step costs in round
 * trips to Cosmos DB and Storage; AMQP (Service Bus) is not HTTP and is counted by the broker.
 * Beside each, what the bench needs to price it: the answer's status and size (the document, for a
 * Cosmos DB point read or write), and, from its headers, whether it was a Cosmos DB query, query plan or batch.
 */
let stepRequests: string[] = [];
let stepResponses: RequestFacts[] = [];
const factsOf = new WeakMap<ClientRequest, RequestFacts>();
subscribe("http.client.request.start", (message) => {
  const { request } = message as { request: ClientRequest };
  stepRequests.push(`${request.method} ${request.getHeader("host")}${request.path.split("?", 1)[0]}`);
  const facts: RequestFacts = { status: 0, bytes: 0 };
  if (request.getHeader("x-ms-cosmos-is-query-plan-request")) facts.cosmos = "query plan";
  else if (request.getHeader("x-ms-documentdb-isquery")) facts.cosmos = "query";
  else if (request.getHeader("x-ms-cosmos-is-batch-request")) facts.cosmos = "batch";
  stepResponses.push(facts);
  factsOf.set(request, facts);
});
subscribe("http.client.response.finish", (message) => {
  const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
  const facts = factsOf.get(request);
  if (!facts) return;
  facts.status = response.statusCode ?? 0;
  facts.bytes = Number(response.headers["content-length"] ?? 0);
});

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
    const requests: string[] = [];
    const responses: RequestFacts[] = [];
    stepRequests = requests;
    stepResponses = responses;
    try {
      if ("http" in step) {
        const { name, ...request } = step.http;
        const http = await app.invokeHttp(name, request);
        report.steps.push({ ms: performance.now() - stepStart, http, requests, responses });
      } else {
        await app.invokeQueue(step.queue.name, step.queue.message);
        report.steps.push({ ms: performance.now() - stepStart, requests, responses });
      }
    } catch (error) {
      report.steps.push({
        ms: performance.now() - stepStart,
        requests,
        responses,
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
