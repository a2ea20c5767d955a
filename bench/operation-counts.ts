import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";
import { QueueClient } from "@azure/storage-queue";
import { projectRoot } from "../dev/local-paths";
import { startServiceBusStandIn } from "../dev/stand-ins/service-bus";
import { loadConfig } from "../src/config";
import { startBackingServices } from "./cold-start";
import { runWorker } from "./deployment-package";

/**
 * What each operation costs in the work Azure bills: HTTP round trips to Cosmos DB and to Storage
 * (counted in the app's process as it sends them: dev/functions-worker-main.js), Service Bus
 * messages (counted by the broker) and Function executions (one per invocation). The deployment
 * package runs as the Functions worker runs it, with the function keys (under Entra ID a caller's
 * grants add a read on a cold cache: the auth part of the bench measures that). Each operation
 * runs twice in one process and the second is reported: the Cosmos DB SDK's account and container
 * reads, and the service's caches, are a new instance's cost, shown apart on the first row.
 */
export interface OperationCount {
  operation: string;
  cosmos: number;
  storage: number;
  /** What those requests were, `METHOD path`, for reading why. */
  requests: string[];
}

export interface OperationCounts {
  rows: OperationCount[];
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

const BASE = "http://127.0.0.1:7071";
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-0000000000cc/resourceGroups/counts-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/counts";
const INSTANCE_PARAMS = {
  subscriptionId: "00000000-0000-0000-0000-0000000000cc",
  resourceGroupName: "counts-rg",
  instanceName: "counts",
};
const JSON_BODY = { "content-type": "application/json" };

function http(
  name: string,
  method: string,
  urlPath: string,
  params: Record<string, string>,
  body?: unknown,
  headers: Record<string, string> = JSON_BODY,
) {
  return {
    http: {
      name,
      method,
      url: `${BASE}${urlPath}`,
      params,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    },
  };
}

function event(id: string) {
  return { id, source: "/twins/counts", specversion: "1.0", type: "Twin.Update", data: { id } };
}

/** Each operation, as [label, step]; each runs twice and the second is counted. */
function operations(connection: string) {
  const profile = { authenticationProfileName: "counted" };
  const endpoint = { ...INSTANCE_PARAMS, endpointName: "counted" };
  const content = { authenticationProfileContent: '{"AllowDBUserOverride":"1"}' };
  const secrets = { queuePrimaryConnectionString: connection, queueSecondaryConnectionString: connection };
  const cloudEvents = { "content-type": "application/cloudevents-batch+json" };
  return [
    [
      "PUT a profile (replace)",
      http("authenticationProfiles-put", "PUT", "/authenticationProfiles/counted", profile, content),
    ],
    ["GET a profile", http("authenticationProfiles-get", "GET", "/authenticationProfiles/counted", profile)],
    [
      "PATCH a profile",
      http("authenticationProfiles-patch", "PATCH", "/authenticationProfiles/counted", profile, content),
    ],
    ["list profiles (one page)", http("authenticationProfiles-list", "GET", "/authenticationProfiles", {})],
    [
      "PUT an endpoint (replace)",
      http("queueEndpoints-put", "PUT", `${INSTANCE}/endpoints/counted`, endpoint, secrets),
    ],
    ["GET an endpoint", http("queueEndpoints-get", "GET", `${INSTANCE}/endpoints/counted`, endpoint)],
    [
      "list an instance's endpoints",
      http("queueEndpoints-list", "GET", `${INSTANCE}/endpoints`, INSTANCE_PARAMS),
    ],
    [
      "ingest 1 event",
      http(
        "twinEvents-ingest",
        "POST",
        `${INSTANCE}/events`,
        INSTANCE_PARAMS,
        [event(randomUUID())],
        cloudEvents,
      ),
    ],
    [
      "ingest 100 events (one request)",
      http(
        "twinEvents-ingest",
        "POST",
        `${INSTANCE}/events`,
        INSTANCE_PARAMS,
        Array.from({ length: 100 }, () => event(randomUUID())),
        cloudEvents,
      ),
    ],
    [
      "GET a missing assessment",
      http(
        "clusterAssessments-get",
        "GET",
        `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Migrate/assessmentProjects/p/clusterAssessments/missing`,
        { subscriptionId: "s", resourceGroupName: "rg", projectName: "p", assessmentName: "missing" },
      ),
    ],
  ] as const;
}

function counted(operation: string, requests: string[], cosmosHost: string): OperationCount {
  const cosmos = requests.filter((request) => request.split(" ")[1]?.startsWith(cosmosHost)).length;
  return {
    operation,
    cosmos,
    storage: requests.length - cosmos,
    requests: requests.map((request) => {
      const [method, target = ""] = request.split(" ");
      return `${method} ${target.slice(target.indexOf("/"))}`;
    }),
  };
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

    // Creates first (not counted), then every operation twice in one process.
    const list = operations(connection);
    const creates = [list[0][1], list[4][1]];
    const steps = [...creates, ...list.flatMap(([, step]) => [step, step])];
    const { report } = await runWorker(stage, env, steps);
    // Each answers 2xx but the missing assessment's GET, a 404 after one read.
    const failed = report.steps.find(
      (step) => step.error || ((step.http?.status ?? 200) >= 300 && step.http?.status !== 404),
    );
    if (failed) throw new Error(`an operation failed: ${failed.error ?? JSON.stringify(failed.http)}`);
    const rows = list.map(([label], index) =>
      counted(label, report.steps[creates.length + index * 2 + 1]?.requests ?? [], cosmosHost),
    );
    const firstRequest = counted(
      "the first request of a new instance (PUT, a create)",
      report.steps[0]?.requests ?? [],
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
        first: counted("the first message", delivered.report.steps[0]?.requests ?? [], cosmosHost),
        rest: counted(
          "the others",
          delivered.report.steps.slice(1).flatMap((step) => step.requests),
          cosmosHost,
        ),
      },
    };
  } finally {
    await serviceBus.close();
    await backing.stop();
    rmSync(path.dirname(stage), { recursive: true, force: true });
  }
}

export function printOperationCounts(counts: OperationCounts): void {
  const line = (label: string, cosmos: string, storage: string, rest: string) =>
    console.log(`  ${label.padEnd(52)} ${cosmos.padEnd(10)} ${storage.padEnd(9)} ${rest}`);
  console.log("");
  line("operation (warm: its second run in the process)", "Cosmos DB", "Storage", "what they were");
  for (const row of [...counts.rows, counts.firstRequest]) {
    line(row.operation, String(row.cosmos), String(row.storage), row.requests.join(", "));
  }
  const { delivery } = counts;
  console.log(
    `  delivery: ${delivery.events} events in ${delivery.messages} queue messages, one Function execution each: ` +
      `${delivery.serviceBusMessages} Service Bus messages (${(delivery.serviceBusMessages / delivery.events).toFixed(2)} an event); ` +
      `the first message ${delivery.first.cosmos} Cosmos DB and ${delivery.first.storage} Storage requests (${delivery.first.requests.join(", ")}), ` +
      `the other ${delivery.messages - 1} together ${delivery.rest.cosmos} and ${delivery.rest.storage}.`,
  );
  console.log(
    "  Every API call is one Function execution. Storage here is the event queue (ingest) and, on delivery, what the host's queue trigger does not do for it; the trigger's own dequeue and delete are the host's (1 each per message).",
  );
}
