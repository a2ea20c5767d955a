import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { loadFunctionApp } from "../dev/functions-worker";
import { readHostSettings } from "../dev/host-json";
import { startQueueTrigger } from "../dev/queue-trigger";
import { loadConfig } from "../src/config";
import type { CostChildReport, CostRun, RunFigures, TimedExecution } from "./cost-runs";
import { recordHttpRequests } from "./http-requests";
import { makeEvents } from "./twin-events";

/**
 * `node dist/bench/cost-child-main.js <package folder> '<runs as JSON>' <report file>`: one instance of the app,
 * as Azure runs it: the deployment package loaded as the Functions worker loads it
 * (dev/functions-worker.ts), HTTP requests invoked through its registered functions at a steady
 * rate, and its queue function fed by the local queue trigger with host.json's batch settings.
 * Each run records what is billed: every execution's start and end, the HTTP requests the process
 * sends (Cosmos DB, and Storage: the app's and the trigger's), what the functions log, and the
 * process's resident memory. Writes the report, JSON, to the file (too large for a pipe's one write).
 */
const sent = recordHttpRequests();
const [root, runsJson, reportFile] = process.argv.slice(2);
const BASE = "https://func-api.azurewebsites.net";
const SUBSCRIPTION = "00000000-0000-0000-0000-0000000000c0";
const DRAIN_TIMEOUT_MS = 120_000;

let queuePuts = 0;
subscribe("http.client.request.start", (message) => {
  const { request } = message as { request: { method: string; path: string } };
  if (request.method === "POST" && /\/messages(\?|$)/.test(request.path) && !request.path.includes("-poison"))
    queuePuts++;
});

let rssMaxMb = 0;
const sampler = setInterval(() => {
  rssMaxMb = Math.max(rssMaxMb, process.memoryUsage().rss / 1048576);
}, 50);
sampler.unref();

const app = loadFunctionApp(root ?? ".");
const config = loadConfig(process.env);
let executions: TimedExecution[] = [];
let delivered = 0;

async function timed(name: string, url: string | undefined, run: () => Promise<number>): Promise<number> {
  const start = performance.now();
  let status = 500;
  try {
    status = await run();
    return status;
  } finally {
    executions.push({ name, url, status, start, end: performance.now() });
  }
}

function http(name: string, method: string, urlPath: string, params: Record<string, string>, body?: unknown) {
  const url = `${BASE}${urlPath}`;
  return timed(name, url, async () => {
    const answer = await app.invokeHttp(name, {
      method,
      url,
      params,
      headers: { "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (answer.status >= 400) throw new Error(`${name} answered ${answer.status}: ${answer.body}`);
    return answer.status;
  });
}

function instanceOf(run: CostRun) {
  const params = { subscriptionId: SUBSCRIPTION, resourceGroupName: "cost-rg", instanceName: run.label };
  const path = `/subscriptions/${SUBSCRIPTION}/resourceGroups/cost-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${run.label}`;
  return { params, path };
}

const ingest = (run: CostRun, count: number, prefix: string) => {
  const { params, path } = instanceOf(run);
  return http("twinEvents-ingest", "POST", `${path}/events`, params, makeEvents(count, prefix));
};

async function drained(expectedDeliveries: () => number): Promise<void> {
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (delivered < expectedDeliveries()) {
    if (performance.now() > deadline)
      throw new Error(`delivered ${delivered} of ${expectedDeliveries()} queue messages in time`);
    await delay(5);
  }
}

/** `count` calls of `call(index)` at `perSecond`, each started on time (none waits for another). */
async function paced(count: number, perSecond: number, call: (index: number) => Promise<unknown>) {
  const start = performance.now();
  const calls: Promise<unknown>[] = [];
  for (let index = 0; index < count; index++) {
    const due = start + (index * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait >= 1) await delay(wait);
    calls.push(call(index));
  }
  await Promise.all(calls);
  return (count * 1000) / (performance.now() - start);
}

async function setUp(run: CostRun): Promise<void> {
  const { params, path } = instanceOf(run);
  for (let index = 0; index < run.endpoints; index++) {
    const connection = run.connectionStrings[index] as string;
    await http(
      "queueEndpoints-put",
      "PUT",
      `${path}/endpoints/ep${index}`,
      { ...params, endpointName: `ep${index}` },
      { queuePrimaryConnectionString: connection, queueSecondaryConnectionString: connection },
    );
  }
  if (run.kind === "api")
    await http(
      "authenticationProfiles-put",
      "PUT",
      `/authenticationProfiles/${run.label}`,
      {
        authenticationProfileName: run.label,
      },
      { authenticationProfileContent: '{"AllowDBUserOverride":"1"}' },
    );
}

/** The mix of API calls costs.md prices: 80 % GET of one resource, 10 % lists, 10 % PUT replacing one. */
function apiCall(run: CostRun, index: number) {
  const name = run.label;
  const params = { authenticationProfileName: name };
  const content = { authenticationProfileContent: '{"AllowDBUserOverride":"1"}' };
  if (index % 10 === 8) return http("authenticationProfiles-list", "GET", "/authenticationProfiles", {});
  if (index % 10 === 9)
    return http("authenticationProfiles-put", "PUT", `/authenticationProfiles/${name}`, params, content);
  return http("authenticationProfiles-get", "GET", `/authenticationProfiles/${name}`, params);
}

function take(
  run: CostRun,
  started: number,
  achievedPerSecond: number,
  fill: RunFigures["fill"],
): RunFigures {
  const requests = sent.take();
  const logs = app.logs.splice(0);
  return {
    label: run.label,
    achievedPerSecond,
    windowMs: performance.now() - started,
    // Taken: the next run's set-up must not add to this one's.
    executions: executions.splice(0),
    requests: requests.requests,
    responses: requests.responses,
    logs: logs.map(({ level, message, functionName }) => ({
      level,
      message,
      functionName: functionName ?? "",
    })),
    fill,
  };
}

async function measure(run: CostRun): Promise<RunFigures> {
  await setUp(run);
  let fill: RunFigures["fill"] = { requests: [], responses: [] };
  if (run.kind === "events") {
    // The first message fills the endpoint cache (a read every ENDPOINT_CACHE_SECONDS), counted apart.
    const putsBefore = queuePuts;
    delivered = 0;
    sent.take();
    await ingest(run, 1, `${run.label}-warm`);
    const puts = queuePuts - putsBefore;
    await drained(() => puts);
    fill = sent.take();
  }
  executions = [];
  app.logs.splice(0);
  sent.take();
  delivered = 0;
  const putsBefore = queuePuts;
  const started = performance.now();
  const requests = run.kind === "events" ? run.events / run.eventsPerRequest : run.events;
  const perSecond = run.kind === "events" ? run.eventsPerSecond / run.eventsPerRequest : run.eventsPerSecond;
  const achieved = await paced(requests, perSecond, (index) =>
    run.kind === "events" ? ingest(run, run.eventsPerRequest, `${run.label}-${index}`) : apiCall(run, index),
  );
  if (run.kind === "events") await drained(() => queuePuts - putsBefore);
  return take(run, started, achieved * (run.kind === "events" ? run.eventsPerRequest : 1), fill);
}

async function main(): Promise<void> {
  const runs = JSON.parse(runsJson ?? "[]") as CostRun[];
  const trigger = await startQueueTrigger({
    connectionString: process.env.AzureWebJobsStorage as string,
    queueName: config.TWIN_EVENTS_QUEUE,
    functionName: "twinEvents-deliver",
    settings: readHostSettings().queues,
    log: () => {},
    handler: async (text, metadata, invocationId) => {
      await timed("twinEvents-deliver", undefined, async () => {
        await app.invokeQueue("twinEvents-deliver", text, metadata, invocationId);
        return 200;
      });
      delivered++;
    },
  });
  const report: CostChildReport = {
    runs: [],
    rssMaxMb: 0,
    rssAfterLoadMb: process.memoryUsage().rss / 1048576,
  };
  try {
    for (const run of runs) report.runs.push(await measure(run));
  } finally {
    await trigger.stop();
  }
  report.rssMaxMb = rssMaxMb;
  writeFileSync(reportFile as string, JSON.stringify(report));
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
