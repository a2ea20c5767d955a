import type { RunningServiceBus } from "../../dev/stand-ins/service-bus";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  deadLetterUrl,
  ingest,
  listBlobs,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import {
  type IngestionStandIn,
  type MetricPoint,
  startIngestionStandIn,
  TEST_INSTRUMENTATION_KEY,
} from "../support/ingestion-stand-in";
import type { TestHost } from "../support/test-host";

// Delivery metrics (docs/operations.md), over the wire, as Application Insights receives them: the
// host (a process of its own) exports them with Azure Monitor's exporter (functions/lib/telemetry.ts)
// to an ingestion stand-in, the track call of its connection string's ingestion endpoint. Events go
// through ingest over HTTP, the queue in Azurite, the local queue trigger and the Service Bus stand-in.

let ingestion: IngestionStandIn;
let serviceBus: RunningServiceBus;
let host: TestHost;
// Three attempts a second apart, then the dead-letter write: allow for a slow, shared machine.
jest.setTimeout(120_000);

let stack: DeliveryStack;
beforeAll(async () => {
  ingestion = await startIngestionStandIn();
  stack = await DeliveryStack.start({
    APPLICATIONINSIGHTS_CONNECTION_STRING: ingestion.connectionString,
    OTEL_METRIC_EXPORT_INTERVAL: "500",
    // The exporter's own usage metrics would go to Microsoft's endpoint, not to the stand-in.
    APPLICATION_INSIGHTS_NO_STATSBEAT: "true",
    APPLICATIONINSIGHTS_SDKSTATS_DISABLED: "true",
  });
  ({ serviceBus, host } = stack);
});

afterAll(async () => {
  // The host first: it exports what is left as it shuts down, to a stand-in still listening.
  await stack?.stop();
  await ingestion?.close();
});

/**
 * The exported data points of one of delivery's instruments whose properties include `attributes`.
 * The exporter asks for delta temporality (all but up-down counters): each point counts what
 * happened since the previous export, so a total is the sum of them all.
 */
function points(name: string, attributes: Record<string, string>): MetricPoint[] {
  return ingestion
    .metricPoints()
    .filter((point) => point.name === name)
    .filter((point) => Object.entries(attributes).every(([key, value]) => point.properties[key] === value));
}

function sum(name: string, attributes: Record<string, string>): number {
  return points(name, attributes).reduce((total, point) => total + point.value, 0);
}

/** A histogram's points, merged: counts and sums added, the least min and the greatest max. */
function histogram(name: string, attributes: Record<string, string>) {
  const all = points(name, attributes);
  return {
    points: all,
    count: all.reduce((total, point) => total + (point.count ?? 0), 0),
    sum: all.reduce((total, point) => total + point.value, 0),
    min: Math.min(...all.map((point) => point.min ?? Number.POSITIVE_INFINITY)),
    max: Math.max(...all.map((point) => point.max ?? Number.NEGATIVE_INFINITY)),
  };
}

it("counts a dead-lettered event once, with its endpoint, and its retries, and logs it", async () => {
  const instance = twinsInstance("metrics-dead");
  const endpoint = { "twins.instance_id": instance, "twins.endpoint_name": "doomed-metrics" };
  const port = await closedPort();
  const sasUrl = await deadLetterUrl();
  await createEndpoint(host, instance, "doomed-metrics", {
    primary: unreachableConnectionString(port, "nowhere"),
    secondary: unreachableConnectionString(port, "nowhere"),
    deadLetter: sasUrl,
  });

  await ingest(host, instance, [cloudEvent("metrics-dead-1")]);
  await waitUntil(
    () => sum("twin_events.dead_lettered", endpoint) >= 1,
    90_000,
    "the dead-lettered counter at the ingestion stand-in",
  );

  // Application Insights' track call, with the connection string's key, as metric envelopes.
  const [call] = ingestion.calls;
  expect(call).toMatchObject({ method: "POST", url: "/v2.1/track" });
  const envelope = ingestion.calls
    .flatMap((each) => each.envelopes)
    .find((each) => each.data.baseType === "MetricData");
  expect(envelope).toMatchObject({
    name: "Microsoft.ApplicationInsights.Metric",
    iKey: TEST_INSTRUMENTATION_KEY,
  });

  expect(sum("twin_events.dead_lettered", endpoint)).toBe(1);
  // Three attempts: the first two failures were retried, the third dead-lettered.
  expect(sum("twin_events.retried", endpoint)).toBe(2);
  expect(sum("twin_events.delivered", endpoint)).toBe(0);
  expect(sum("twin_events.poisoned", endpoint)).toBe(0);
  expect(await listBlobs(sasUrl)).toHaveLength(1);
  await host.flushLogs();
  const line = host.logs
    .map((entry) => entry.message)
    .find(
      (message) =>
        message.startsWith("twin event dead-lettered:") && message.includes('event="metrics-dead-1"'),
    );
  expect(line).toContain('endpoint="doomed-metrics"');
  expect(line).toContain(`instance=${JSON.stringify(instance)}`);
  expect(line).toContain("attempts=3");
  // The attributes (the envelope's properties) name the instance and endpoint only: no connection
  // string, no event id.
  const [point] = points("twin_events.dead_lettered", endpoint);
  expect(Object.keys(point?.properties ?? {}).sort()).toEqual(["twins.endpoint_name", "twins.instance_id"]);
});

it("counts a delivered event and records its latency from ingest to the topic's acknowledgement", async () => {
  const instance = twinsInstance("metrics-ok");
  const endpoint = { "twins.instance_id": instance, "twins.endpoint_name": "fine" };
  const subscriber = stack.subscribe("metrics-topic");
  const connection = serviceBus.connectionString("metrics-topic");
  await createEndpoint(host, instance, "fine", { primary: connection, secondary: connection });

  const before = Date.now();
  await ingest(host, instance, [cloudEvent("metrics-ok-1")]);
  await waitUntil(() => subscriber.received.length === 1, 90_000, "the event");
  // The counter and the histogram are recorded one after the other: they may come in two exports.
  await waitUntil(
    () =>
      sum("twin_events.delivered", endpoint) >= 1 &&
      histogram("twin_events.delivery_latency", endpoint).count >= 1,
    90_000,
    "the delivered counter and the latency at the ingestion stand-in",
  );
  const elapsed = Date.now() - before;

  expect(sum("twin_events.delivered", endpoint)).toBe(1);
  expect(sum("twin_events.retried", endpoint)).toBe(0);
  // A histogram's point: its sum as the value, its count, min and max beside it.
  const latency = histogram("twin_events.delivery_latency", endpoint);
  expect(latency.points).toHaveLength(1);
  expect(latency.count).toBe(1);
  expect(latency.min).toBeGreaterThanOrEqual(0);
  expect(latency.max).toBe(latency.min);
  expect(latency.sum).toBe(latency.min);
  expect(latency.sum).toBeLessThanOrEqual(elapsed);
});
