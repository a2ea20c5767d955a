import { randomUUID } from "node:crypto";
import * as path from "node:path";
import { format } from "node:util";
import type { Container } from "@azure/cosmos";
import { HttpRequest, HttpResponse, type HttpResponseInit, InvocationContext } from "@azure/functions";
import { loadFunctionApp } from "../dev/functions-worker";
import { projectRoot } from "../dev/local-paths";
import { nameKey } from "../src/common/name-key";
import { formatEtag } from "../src/common/preconditions";
import { stampSystemData } from "../src/common/system-data";
import { loadConfig } from "../src/config";
import { correlationIdFrom } from "../src/http/with-conventions";
import type { ProfileDocument } from "../src/profiles/profile-service";
import { CONTAINERS } from "../src/store/containers";
import { createCosmosClient } from "../src/store/cosmos-client";
import { runChild, startBackingServices } from "./backing-services";
import { formatRange, type Rounds, roundErrors, runRounds } from "./rounds";

/**
 * Handlers in-process: the function the compiled app registers through @azure/functions (loaded as
 * the worker loads it: dev/functions-worker.ts) next to a minimal handler making the same Cosmos DB
 * calls with a client made as the service's, answering the same body, ETag and ids. Each request
 * gets a new HttpRequest and InvocationContext as the programming model makes them, and its answer
 * becomes an HttpResponse's bytes as the model makes them. AUTH_MODE=keys: the host checks keys.
 * A child process holds only these and tinybench's loop; Cosmos DB and Azurite run in their own.
 */
export const HANDLER_GOAL = 1.25;
const WARMUP = 100;
const PARAMS = { authenticationProfileName: "bench-handler" };
const REQUEST = { url: "http://127.0.0.1/authenticationProfiles/bench-handler", query: {}, params: PARAMS };
const CONTENT = '{"Client_ID":"ExampleClientID","App_ID":"example","AllowDBUserOverride":"1"}';

export type HandlerSide = { cpuUs: number; wallUs: number };
export type HandlerPair = { service: HandlerSide; minimal: HandlerSide; serviceFirst: boolean };
export interface HandlerFigures {
  requests: number;
  operations: string[];
  rounds: Rounds<Record<string, HandlerPair>>;
  nodeVersion: string;
}

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;
/** `name`: the function's, as registered; a body makes it a PUT, else a GET. */
type Operation = { label: string; name: string; body?: string; service: Handler; minimal: Handler };
type StoredProfile = ProfileDocument & { _etag: string };

/** The service's answer, with none of its validation, conventions or logging. */
function answer(document: StoredProfile, request: HttpRequest): HttpResponseInit {
  const { authenticationProfileName: name, authenticationProfileContent, systemData } = document;
  const jsonBody = { id: name, authenticationProfileName: name, authenticationProfileContent, systemData };
  const correlation = correlationIdFrom(request.headers.get("x-ms-correlation-request-id"));
  const ids = { "x-ms-correlation-request-id": correlation, "x-ms-request-id": randomUUID() };
  return { status: 200, jsonBody, headers: { ETag: formatEtag(document._etag), ...ids } };
}

/** GET: one point read. PUT: a read, then a replace of that version (If-Match), as the service does. */
function minimalHandlers(container: Container): { get: Handler; put: Handler } {
  const item = (request: HttpRequest) =>
    container.item(nameKey(request.params.authenticationProfileName ?? ""), "account");
  return {
    get: async (request) => {
      const { resource } = await item(request).read<StoredProfile>();
      return resource ? answer(resource, request) : { status: 404 };
    },
    put: async (request) => {
      const { authenticationProfileContent } = (await request.json()) as ProfileDocument;
      const { resource: existing } = await item(request).read<StoredProfile>();
      if (!existing) return { status: 404 };
      const now = new Date().toISOString();
      const { id, scope, authenticationProfileName, createdAt } = existing;
      const systemData = stampSystemData(existing.systemData, { id: "default", type: "Key" }, now);
      const document = { id, scope, authenticationProfileName, authenticationProfileContent, createdAt };
      const { resource } = await item(request).replace<ProfileDocument>(
        { ...document, updatedAt: now, systemData },
        { accessCondition: { type: "IfMatch", condition: existing._etag } },
      );
      return answer(resource as StoredProfile, request);
    },
  };
}

/** One request as the worker hands it over, its answer's bytes as the model makes them: 2xx or it throws. */
async function call(handler: Handler, { label, name, body }: Operation): Promise<ArrayBuffer> {
  const method = body === undefined ? "GET" : "PUT";
  const headers: Record<string, string> = { "x-functions-key": process.env.FUNCTION_KEY ?? "" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const request = new HttpRequest({ ...REQUEST, method, headers, body: { string: body } });
  // Each line formatted as the programming model does; dropped where the worker would send it on.
  const logHandler = (_level: string, ...args: unknown[]) => void format(...args);
  const context = new InvocationContext({ invocationId: randomUUID(), functionName: name, logHandler });
  const response = new HttpResponse(await handler(request, context));
  const bytes = await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`${label} answered ${response.status}`);
  return bytes;
}

/** One round of one operation: both handlers warmed up, then timed, in the order given. */
async function timeBoth(operation: Operation, requests: number, serviceFirst: boolean): Promise<HandlerPair> {
  const { Bench } = require("tinybench") as typeof import("tinybench");
  const unmeasured = { cpuUs: Number.NaN, wallUs: Number.NaN };
  const sides = { service: unmeasured, minimal: unmeasured };
  const warmup = { warmupIterations: WARMUP, warmupTime: 0, throws: true };
  const bench = new Bench({ iterations: requests, time: 0, ...warmup });
  for (const side of serviceFirst ? (["service", "minimal"] as const) : (["minimal", "service"] as const)) {
    let [cpu, start] = [process.cpuUsage(), 0];
    bench.add(side, () => call(operation[side], operation), {
      async: true, // else tinybench calls it once, unawaited, to find out
      beforeAll: () => {
        [cpu, start] = [process.cpuUsage(), performance.now()];
      },
      afterAll: (mode) => {
        const [used, wallUs] = [process.cpuUsage(cpu), (performance.now() - start) * 1000];
        if (mode === "run")
          sides[side] = { cpuUs: (used.user + used.system) / requests, wallUs: wallUs / requests };
      },
    });
  }
  await bench.run();
  const short = bench.tasks.find((task) => task.runs !== requests);
  if (short) throw new Error(`${operation.label}: ${short.name} ran ${short.runs} requests, not ${requests}`);
  return { ...sides, serviceFirst };
}

/** The rounds, in this (child) process: FUNCTION_KEY, the Cosmos DB settings and the rest in its env. */
async function measure(rounds: number, requests: number): Promise<HandlerFigures> {
  const app = loadFunctionApp(projectRoot());
  const service = (name: string) => app.functions.get(name)?.callback as Handler;
  const config = loadConfig();
  const database = createCosmosClient(config).database(config.COSMOS_DATABASE);
  const minimal = minimalHandlers(database.container(CONTAINERS.profiles.id));
  function operation(label: string, name: string, minimal: Handler, body?: string): Operation {
    return { label, name, body, service: service(name), minimal };
  }
  const body = JSON.stringify({ authenticationProfileContent: CONTENT });
  const put = operation("PUT a profile (replace)", "authenticationProfiles-put", minimal.put, body);
  const operations = [operation("GET a profile", "authenticationProfiles-get", minimal.get), put];
  await call(put.service, put); // creates it (201)
  // The same body from both (systemData aside: a replace stamps the time).
  const text = (b: ArrayBuffer) => JSON.stringify({ ...JSON.parse(String(Buffer.from(b))), systemData: 0 });
  for (const op of operations)
    if (text(await call(op.service, op)) !== text(await call(op.minimal, op)))
      throw new Error(`${op.label}: the answers differ`);
  for (const op of operations) await timeBoth(op, requests, true); // one unmeasured round: JIT, pools
  const figures = await runRounds(rounds, async (round) => {
    const result: Record<string, HandlerPair> = {};
    for (const op of operations) result[op.label] = await timeBoth(op, requests, round % 2 === 1);
    return result;
  });
  const labels = operations.map((op) => op.label);
  return { requests, operations: labels, rounds: figures, nodeVersion: process.version };
}

/** `rounds` rounds of `requests` sequential requests to each handler, in a child process of its own. */
export async function benchHandlers(rounds: number, requests: number): Promise<HandlerFigures> {
  const backing = await startBackingServices();
  try {
    const { APPLICATIONINSIGHTS_CONNECTION_STRING: _off, ...inherited } = process.env;
    const env = { ...inherited, ...backing.settings, AUTH_MODE: "keys" };
    const child = path.join(__dirname, "handler-bench.js");
    return JSON.parse(await runChild([child, String(rounds), String(requests)], env)) as HandlerFigures;
  } finally {
    await backing.stop();
  }
}

/** Per finished round, the service's CPU per request ÷ the minimal handler's; and how many held the goal. */
export function handlerRatios(figures: HandlerFigures, label: string): { ratios: number[]; held: number } {
  const ratio = (pair?: HandlerPair) => (pair ? pair.service.cpuUs / pair.minimal.cpuUs : Number.NaN);
  const ratios = figures.rounds.values.map((round) => ratio(round[label]));
  return { ratios, held: ratios.filter((ratio) => ratio <= HANDLER_GOAL).length };
}

export function printHandlers(figures: HandlerFigures): void {
  const { values, errors } = figures.rounds;
  const us = (value: number) => `${Math.round(value).toLocaleString("en-US")} µs`;
  const row = (...cells: string[]) =>
    console.log(`  ${cells.map((cell, i) => cell.padEnd([26, 20, 20, 15, 9][i] ?? 0)).join(" ")}`.trimEnd());
  const of = (op: string, side: "service" | "minimal", figure: keyof HandlerSide) =>
    values.map((round) => round[op]?.[side][figure] ?? Number.NaN);
  const range = (...args: Parameters<typeof of>) => formatRange(of(...args), us);
  console.log("");
  row("CPU per request", "service's handler", "minimal handler", "ratio", "goal", "held");
  for (const op of figures.operations) {
    const { ratios, held } = handlerRatios(figures, op);
    const ratio = formatRange(ratios, (value) => `${value.toFixed(2)} ×`);
    const cpu = [range(op, "service", "cpuUs"), range(op, "minimal", "cpuUs")];
    row(op, ...cpu, ratio, `≤ ${HANDLER_GOAL} ×`, `in ${held} of ${values.length + errors.length} rounds`);
    row("  wall time per request", range(op, "service", "wallUs"), range(op, "minimal", "wallUs"));
  }
  console.log(
    `  Per round and handler, ${WARMUP} requests unmeasured, then ${figures.requests} timed, one at a time; the first handler alternates by round, after one unmeasured round. Timed by tinybench in a child process of Node.js ${figures.nodeVersion} that holds only the compiled app, the minimal handlers and the timing loop (no driver, no host); the Cosmos DB server and Azurite run in processes of their own, not counted.`,
  );
  for (const error of roundErrors("handler", figures.rounds)) console.log(error);
}

// The child: an error is an unhandled rejection, which prints it and exits with 1.
if (require.main === module)
  void measure(Number(process.argv[2]), Number(process.argv[3])).then((figures) =>
    process.stdout.write(JSON.stringify(figures)),
  );
