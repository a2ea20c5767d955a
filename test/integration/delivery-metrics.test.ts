import { type Attributes, metrics } from "@opentelemetry/api";
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import type { RunningServiceBus } from "../../dev/stand-ins/service-bus";
import { DELIVERY_METER } from "../../src/delivery/delivery-metrics";
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
import type { TestHost } from "../support/test-host";

// Delivery metrics (docs/operations.md), over the wire: an in-memory MeterProvider stands in for
// Azure Monitor's, registered globally before any event is delivered; events go through ingest
// over HTTP, the queue in Azurite, the local queue trigger and the Service Bus stand-in.

/** A reader the test collects from when it likes (no export interval). */
class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const reader = new CollectingReader();
const provider = new MeterProvider({ readers: [reader] });
let serviceBus: RunningServiceBus;
let host: TestHost;
// Three attempts a second apart, then the dead-letter write: allow for a slow, shared machine.
jest.setTimeout(120_000);

let stack: DeliveryStack;
beforeAll(async () => {
  metrics.setGlobalMeterProvider(provider);
  stack = await DeliveryStack.start();
  ({ serviceBus, host } = stack);
});

afterAll(async () => {
  await stack?.stop();
  await provider.shutdown();
  metrics.disable();
});

/** The data points of one of delivery's instruments whose attributes include `attributes`. */
async function points(name: string, attributes: Attributes): Promise<DataPoint<number | Histogram>[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .filter((scope) => scope.scope.name === DELIVERY_METER)
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name)
    .flatMap((metric) => metric.dataPoints as DataPoint<number | Histogram>[])
    .filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value));
}

async function sum(name: string, attributes: Attributes): Promise<number> {
  return (await points(name, attributes)).reduce((total, point) => total + (point.value as number), 0);
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
    async () => (await sum("twin_events.dead_lettered", endpoint)) >= 1,
    90_000,
    "the dead-lettered counter",
  );

  expect(await sum("twin_events.dead_lettered", endpoint)).toBe(1);
  // Three attempts: the first two failures were retried, the third dead-lettered.
  expect(await sum("twin_events.retried", endpoint)).toBe(2);
  expect(await sum("twin_events.delivered", endpoint)).toBe(0);
  expect(await sum("twin_events.poisoned", endpoint)).toBe(0);
  expect(await listBlobs(sasUrl)).toHaveLength(1);
  const line = host.logs
    .map((entry) => entry.message)
    .find(
      (message) =>
        message.startsWith("twin event dead-lettered:") && message.includes('event="metrics-dead-1"'),
    );
  expect(line).toContain('endpoint="doomed-metrics"');
  expect(line).toContain(`instance=${JSON.stringify(instance)}`);
  expect(line).toContain("attempts=3");
  // The attributes name the instance and endpoint only: no connection string, no event id.
  const [point] = await points("twin_events.dead_lettered", endpoint);
  expect(Object.keys(point?.attributes ?? {}).sort()).toEqual(["twins.endpoint_name", "twins.instance_id"]);
});

it("counts a delivered event and records its latency from ingest to the topic's acknowledgement", async () => {
  const instance = twinsInstance("metrics-ok");
  const endpoint = { "twins.instance_id": instance, "twins.endpoint_name": "fine" };
  const subscriber = stack.subscribe("metrics-topic");
  const connection = serviceBus.connectionString("metrics-topic");
  await createEndpoint(host, instance, "fine", { primary: connection, secondary: connection });

  const before = Date.now();
  await ingest(host, instance, [cloudEvent("metrics-ok-1")]);
  await waitUntil(() => subscriber.received.length === 1, 30_000, "the event");
  await waitUntil(async () => (await sum("twin_events.delivered", endpoint)) >= 1, 10_000, "the counter");
  const elapsed = Date.now() - before;

  expect(await sum("twin_events.delivered", endpoint)).toBe(1);
  expect(await sum("twin_events.retried", endpoint)).toBe(0);
  const [latency, ...others] = await points("twin_events.delivery_latency", endpoint);
  expect(others).toHaveLength(0);
  const histogram = latency?.value as Histogram;
  expect(histogram.count).toBe(1);
  expect(histogram.min).toBeGreaterThanOrEqual(0);
  expect(histogram.sum).toBeLessThanOrEqual(elapsed);
});
