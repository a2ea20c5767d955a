import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";
import { QueueClient } from "@azure/storage-queue";
import { projectRoot } from "../dev/local-paths";
import { startServiceBusStandIn } from "../dev/stand-ins/service-bus";
import { loadConfig } from "../src/config";
import { startBackingServices } from "./backing-services";
import { runWorker } from "./deployment-package";
import type { WorkerReport } from "./functions-worker-main";
import { requestUnits } from "./request-units";

/**
 * What each operation costs in the work Azure bills: HTTP round trips to Cosmos DB and to Storage
 * (counted in the app's process as it sends them: bench/functions-worker-main.js), the request units
 * those Cosmos DB requests imply (bench/request-units.ts), Service Bus messages (counted by the
 * broker) and Function executions (one per invocation). The deployment package runs as the
 * Functions worker runs it, with the function keys (under Entra ID a caller's grants add a read on
 * a cold cache, once per AUTH_CACHE_SECONDS). Each operation runs twice in one process and the
 * second is reported: the SDK's account read and the service's caches are a new instance's cost,
 * shown apart. Each row has the least its guarantees need, and why any call above it is made.
 */
export interface OperationCount {
  operation: string;
  cosmos: number;
  /** Request units, priced from the documents' sizes. */
  ru: number;
  storage: number;
  /** What those requests were, `METHOD path`, for reading why. */
  requests: string[];
}

export interface CountedRow extends OperationCount {
  minimum: Minimum;
}

export interface OperationCounts {
  rows: CountedRow[];
  /** The first request of a new instance: the SDK's metadata reads included. */
  firstRequest: OperationCount;
  /** Every queue message of the run, the first (which fills the endpoint cache) apart. */
  delivery: {
    events: number;
    messages: number;
    serviceBusMessages: number;
    first: OperationCount;
    rest: OperationCount;
  };
}

/** The fewest Cosmos DB and Storage round trips an operation's guarantees allow, and why. */
interface Minimum {
  cosmos: number;
  storage: number;
  why: string;
  /** Why the service makes more calls than the minimum, when it does. */
  above?: string;
}

const QUERY_PLAN =
  "@azure/cosmos sends a query-plan request beside every new query's first page (queryIterator.js, fetchQueryPlan), whatever the options; in parallel, so no longer wait";

const BASE = "http://127.0.0.1:7071";
const INSTANCE_PARAMS = {
  subscriptionId: "00000000-0000-0000-0000-0000000000cc",
  resourceGroupName: "counts-rg",
  instanceName: "counts",
};
const INSTANCE = `/subscriptions/${INSTANCE_PARAMS.subscriptionId}/resourceGroups/counts-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/counts`;
const METHODS: Record<string, string> = {
  get: "GET",
  put: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  list: "GET",
};
const CLOUD_EVENTS = { "content-type": "application/cloudevents-batch+json" };

/** A step of the worker stand-in: the function `name` invoked as the host would for `urlPath`. */
function http(name: string, urlPath: string, params: Record<string, string>, body?: unknown, type?: object) {
  const method = name === "twinEvents-ingest" ? "POST" : (METHODS[name.split("-")[1] ?? ""] ?? "GET");
  const headers = { "content-type": "application/json", ...type };
  const text = body === undefined ? {} : { body: JSON.stringify(body) };
  return { http: { name, method, url: `${BASE}${urlPath}`, params, headers, ...text } };
}

/** A step on the endpoint `name` of the counted instance. */
function endpointStep(verb: string, name: string, body?: unknown) {
  return http(
    `queueEndpoints-${verb}`,
    `${INSTANCE}/endpoints/${name}`,
    { ...INSTANCE_PARAMS, endpointName: name },
    body,
  );
}

const events = (count: number) =>
  Array.from({ length: count }, () => ({
    id: randomUUID(),
    source: "/twins",
    specversion: "1.0",
    type: "T",
  }));

/** The least of an operation that calls Cosmos DB only: how many calls, and why each. */
const cosmosOnly = (cosmos: number, why: string): Minimum => ({ cosmos, storage: 0, why });

const POINT_READ = cosmosOnly(1, "one point read");
const READ_THEN_WRITE = cosmosOnly(
  2,
  "a read (200 or 201, the systemData kept, the merge) and a write on its ETag (no lost update)",
);
const CREATE = cosmosOnly(
  3,
  "a read (201 or 200), the quota ledger's read, one batch writing the profile and the ledger (an exact count on every host)",
);
const DELETE = cosmosOnly(2, "the quota ledger's read, one batch deleting the profile and uncounting it");
const ROUTE_WRITE = cosmosOnly(
  3,
  "a read (201 or 200, systemData kept), the routes' ledger's read, one batch writing the route and the ledger and reading its endpoint (an exact count; no route for a missing endpoint)",
);
const ENDPOINT_DELETE = cosmosOnly(
  3,
  "the two ledgers' reads (side by side), one batch deleting and uncounting the endpoint and writing the routes' ledger back (no route is made for it meanwhile)",
);
const LIST_PAGE: Minimum = { cosmos: 1, storage: 0, why: "one query page", above: QUERY_PLAN };
const ENQUEUE: Minimum = { cosmos: 0, storage: 1, why: "one queue message" };

/** Each operation: its label, the least it needs, and two steps, of which the second is counted. */
function operations(connection: string) {
  const content = { authenticationProfileContent: '{"AllowDBUserOverride":"1"}' };
  const profile = (verb: string, name: string, body?: unknown) =>
    http(
      `authenticationProfiles-${verb}`,
      `/authenticationProfiles/${name}`,
      { authenticationProfileName: name },
      body,
    );
  const endpoint = (verb: string, body?: unknown) => endpointStep(verb, "counted", body);
  const secrets = { queuePrimaryConnectionString: connection, queueSecondaryConnectionString: connection };
  const route = (name: string) =>
    http(
      "eventRoutes-put",
      `${INSTANCE}/eventRoutes/${name}`,
      { ...INSTANCE_PARAMS, eventRouteName: name },
      // Lets every counted event through (their type is "T"), so delivery below sends what it sent without routes.
      { endpointName: "counted", filter: "type = 'T'" },
    );
  const ingest = (count: number) =>
    http("twinEvents-ingest", `${INSTANCE}/events`, INSTANCE_PARAMS, events(count), CLOUD_EVENTS);
  const assessment = {
    subscriptionId: "s",
    resourceGroupName: "rg",
    projectName: "p",
    assessmentName: "missing",
  };
  const assessmentPath =
    "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Migrate/assessmentProjects/p/clusterAssessments/missing";
  return [
    [
      "PUT a profile (create)",
      CREATE,
      profile("put", "created-1", content),
      profile("put", "created-2", content),
    ],
    ["PUT a profile (replace)", READ_THEN_WRITE, ...twice(profile("put", "counted", content))],
    ["GET a profile", POINT_READ, ...twice(profile("get", "counted"))],
    ["PATCH a profile", READ_THEN_WRITE, ...twice(profile("patch", "counted", content))],
    ["DELETE a profile", DELETE, profile("delete", "created-1"), profile("delete", "created-2")],
    [
      "list profiles (one page)",
      LIST_PAGE,
      ...twice(http("authenticationProfiles-list", "/authenticationProfiles", {})),
    ],
    ["PUT an endpoint (replace)", READ_THEN_WRITE, ...twice(endpoint("put", secrets))],
    ["GET an endpoint", POINT_READ, ...twice(endpoint("get"))],
    [
      "list an instance's endpoints",
      LIST_PAGE,
      ...twice(http("queueEndpoints-list", `${INSTANCE}/endpoints`, INSTANCE_PARAMS)),
    ],
    ["ingest 1 event", ENQUEUE, ingest(1), ingest(1)],
    ["ingest 100 events (one request)", ENQUEUE, ingest(100), ingest(100)],
    [
      "GET a missing assessment",
      { ...POINT_READ, why: "one point read (its 404)" },
      ...twice(http("clusterAssessments-get", assessmentPath, assessment)),
    ],
    ["PUT an event route (create)", ROUTE_WRITE, route("route-1"), route("route-2")],
    ["PUT an event route (replace)", ROUTE_WRITE, ...twice(route("route-1"))],
    [
      "DELETE an endpoint",
      ENDPOINT_DELETE,
      endpointStep("delete", "doomed-1"),
      endpointStep("delete", "doomed-2"),
    ],
    // Nothing to seal or open: the same round trips as a KeyBased endpoint's, less the crypto.
    [
      "PUT an identity endpoint (replace)",
      READ_THEN_WRITE,
      ...twice(
        endpointStep("put", "by-identity", {
          authenticationType: "IdentityBased",
          endpointUri: "sb://contoso.servicebus.windows.net/",
          entityPath: "twin-events",
        }),
      ),
    ],
  ] as const;
}

/** What the operations act on, made before them: a profile, the endpoint, two endpoints to delete. */
function setupSteps(list: ReturnType<typeof operations>, connection: string) {
  const secrets = { queuePrimaryConnectionString: connection, queueSecondaryConnectionString: connection };
  return [
    list[1][2],
    list[6][2],
    endpointStep("put", "doomed-1", secrets),
    endpointStep("put", "doomed-2", secrets),
  ];
}

function twice<T>(step: T): [T, T] {
  return [step, step];
}

type Step = WorkerReport["steps"][number];

/** What the steps sent, as one row: paths shortened to `collection/id` for reading. */
function counted(operation: string, steps: Step[], cosmosHost: string): OperationCount {
  const row: OperationCount = { operation, cosmos: 0, ru: 0, storage: 0, requests: [] };
  for (const step of steps) {
    step.requests.forEach((request, index) => {
      const [method, target = ""] = request.split(" ");
      const path = target.slice(target.indexOf("/"));
      if (!target.startsWith(cosmosHost)) {
        row.storage++;
        row.requests.push(`${method} ${path}`);
        return;
      }
      const facts = step.responses[index] ?? { status: 0, bytes: 0 };
      row.cosmos++;
      row.ru += requestUnits(request, facts);
      const short = path.replace(/^\/dbs\/[^/]+\/colls\//, "").replace("/docs", "");
      row.requests.push(`${facts.cosmos ?? method} ${short || "/"}`);
    });
  }
  return row;
}

/** How many events a queue message carries, plain (`events`) or compressed (`eventsGzip`). */
function eventsIn(text: string): number {
  const message = JSON.parse(text) as { events?: unknown[]; eventsGzip?: string };
  if (message.events) return message.events.length;
  const expanded = gunzipSync(Buffer.from(message.eventsGzip ?? "", "base64")).toString("utf8");
  return (JSON.parse(expanded) as unknown[]).length;
}

export async function benchOperationCounts(): Promise<OperationCounts> {
  const { stagePackage } = require(path.join(projectRoot(), "infra", "scripts", "stage-package.js")) as {
    stagePackage(options: { stage: string; quiet: boolean }): Promise<unknown>;
  };
  const stage = path.join(mkdtempSync(path.join(tmpdir(), "bench-counts-")), "package");
  const backing = await startBackingServices();
  const serviceBus = await startServiceBusStandIn({ port: 0 });
  try {
    await stagePackage({ stage, quiet: true });
    const { APPLICATIONINSIGHTS_CONNECTION_STRING: _off, ...inherited } = process.env;
    const env: NodeJS.ProcessEnv = { ...inherited, ...backing.settings, ALLOW_LOOPBACK_ENDPOINTS: "true" };
    const config = loadConfig(env);
    const cosmosHost = new URL(config.COSMOS_ENDPOINT).host;
    const topic = `counts-${randomUUID().slice(0, 8)}`;
    serviceBus.ensureSubscription(topic, "all");
    const connection = serviceBus.connectionString(topic);

    // The resources the operations act on first (the first is a new instance's first request),
    // then every operation's two steps in one process.
    const list = operations(connection);
    const setup = setupSteps(list, connection);
    const { report } = await runWorker(stage, env, [
      ...setup,
      ...list.flatMap(([, , warm, step]) => [warm, step]),
    ]);
    // Each answers 2xx but the missing assessment's GET, a 404 after one read.
    const failed = report.steps.find(
      (step) => step.error || ((step.http?.status ?? 200) >= 300 && step.http?.status !== 404),
    );
    if (failed) throw new Error(`an operation failed: ${failed.error ?? JSON.stringify(failed.http)}`);
    const rows = list.map(([label, minimum], index) => ({
      ...counted(label, report.steps.slice(setup.length + index * 2 + 1).slice(0, 1), cosmosHost),
      minimum,
    }));
    const firstRequest = counted(
      "the first request of a new instance (PUT, a create)",
      report.steps.slice(0, 1),
      cosmosHost,
    );

    // Delivery: the queue's messages (4: two ingests of 1 event, two of 100) in a new process,
    // each as the host hands one over; the first pays the endpoint cache's fill, counted apart.
    const queue = new QueueClient(env.AzureWebJobsStorage as string, config.TWIN_EVENTS_QUEUE);
    const { receivedMessageItems } = await queue.receiveMessages({ numberOfMessages: 32 });
    const messages = receivedMessageItems.map((item) =>
      Buffer.from(item.messageText, "base64").toString("utf8"),
    );
    const events = messages.reduce((sum, text) => sum + eventsIn(text), 0);
    const before = serviceBus.topicStats(topic).accepted;
    const delivered = await runWorker(
      stage,
      env,
      messages.map((message) => ({ queue: { name: "twinEvents-deliver", message } })),
    );
    const failedDelivery = delivered.report.steps.find((step) => step.error);
    if (failedDelivery) throw new Error(`a delivery failed: ${failedDelivery.error}`);
    return {
      rows,
      firstRequest,
      delivery: {
        events,
        messages: messages.length,
        serviceBusMessages: serviceBus.topicStats(topic).accepted - before,
        first: counted("the first message", delivered.report.steps.slice(0, 1), cosmosHost),
        rest: counted("the others", delivered.report.steps.slice(1), cosmosHost),
      },
    };
  } finally {
    await serviceBus.close();
    await backing.stop();
    rmSync(path.dirname(stage), { recursive: true, force: true });
  }
}

export function printOperationCounts(counts: OperationCounts): void {
  const line = (label: string, cosmos: string, ru: string, storage: string, rest: string) =>
    console.log(`  ${label.padEnd(34)} ${cosmos.padEnd(11)} ${ru.padEnd(6)} ${storage.padEnd(9)} ${rest}`);
  const figure = (count: number, least: number) => (count === least ? `${count}` : `${count} (${least})`);
  console.log("");
  line("operation (warm)", "Cosmos DB", "RU ≈", "Storage", "the least it needs; why more");
  for (const row of counts.rows) {
    const { minimum } = row;
    const above = row.cosmos > minimum.cosmos || row.storage > minimum.storage;
    line(
      row.operation,
      figure(row.cosmos, minimum.cosmos),
      row.ru.toFixed(1),
      figure(row.storage, minimum.storage),
      `${minimum.why}${above ? `; more: ${minimum.above ?? "NOT EXPLAINED"}` : ""}`,
    );
  }
  console.log("  (n): the least the operation's guarantees need, where the service makes more calls.");
  const { firstRequest, delivery } = counts;
  console.log(
    `  ${firstRequest.operation}: ${firstRequest.cosmos} Cosmos DB round trips (${firstRequest.requests.join(", ")}): the SDK's account read, once a process; the quota ledger's first read finds none and counts the scope's profiles (a query and its plan), once a scope.`,
  );
  console.log(
    `  delivery: ${delivery.events} events in ${delivery.messages} queue messages, one Function execution each: ` +
      `${delivery.serviceBusMessages} Service Bus messages (${(delivery.serviceBusMessages / delivery.events).toFixed(2)} an event); ` +
      `the first message ${delivery.first.cosmos} Cosmos DB and ${delivery.first.storage} Storage requests (${delivery.first.requests.join(", ")}), ` +
      `the other ${delivery.messages - 1} together ${delivery.rest.cosmos} and ${delivery.rest.storage}: the least, 0 and 0, with a warm endpoint cache.`,
  );
  console.log(
    "  The first message's two account reads: the endpoint query and its plan go out at once on a new client, and the SDK does not share an account read in flight. Storage here is the event queue (ingest); the trigger's own dequeue and delete are the host's (1 each per message).",
  );
}
