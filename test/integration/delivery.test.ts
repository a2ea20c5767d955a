import { gzipSync } from "node:zlib";
import { QueueClient } from "@azure/storage-queue";
import type { RunningServiceBus } from "../../dev/stand-ins/service-bus";
import { deadLetterBlobName } from "../../src/delivery/dead-letter-name";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  deadLetterUrl,
  ingest,
  listBlobs,
  poisonRecords,
  type Subscriber,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";
import type { TestHost } from "../support/test-host";

// Twin event delivery (docs/api.md), over the wire: ingest over HTTP, the storage queue in
// Azurite, the local queue trigger, real SDK subscribers on the Service Bus stand-in, blobs in Azurite.
let serviceBus: RunningServiceBus;
let host: TestHost;

let stack: DeliveryStack;
beforeAll(async () => {
  stack = await DeliveryStack.start();
  ({ serviceBus, host } = stack);
});

afterAll(() => stack.stop());

function subscribe(topic: string): Subscriber {
  const subscriber = stack.subscribe(topic);
  return subscriber;
}

it("delivers an event to the topic with its data as body, its id and the cloudEvents:* properties", async () => {
  const instance = twinsInstance("single");
  const subscriber = subscribe("single-topic");
  const connection = serviceBus.connectionString("single-topic");
  await createEndpoint(host, instance, "orders", { primary: connection, secondary: connection });
  const event = {
    ...cloudEvent("evt-single", { temperature: 21.5, unit: "C" }),
    time: "2026-11-22T08:00:00Z",
    subject: "twin-7",
    dataschema: "dtmi:example:Thermostat;1",
  };
  await ingest(host, instance, [event]);
  await waitUntil(() => subscriber.received.length === 1, 30_000, "the event");
  const [message] = subscriber.received;
  expect(message?.body).toEqual({ temperature: 21.5, unit: "C" });
  expect(message?.messageId).toBe("evt-single");
  expect(message?.contentType).toBe("application/json");
  expect(message?.applicationProperties).toEqual({
    "cloudEvents:id": "evt-single",
    "cloudEvents:source": "/twins/test",
    "cloudEvents:specversion": "1.0",
    "cloudEvents:type": "Twin.Update",
    "cloudEvents:time": "2026-11-22T08:00:00Z",
    "cloudEvents:subject": "twin-7",
    "cloudEvents:dataschema": "dtmi:example:Thermostat;1",
    // Ingest started a trace for it (test/integration/delivery-tracing.test.ts).
    "Diagnostic-Id": message?.applicationProperties?.traceparent,
    traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/),
  });
});

it("delivers a 500-event batch complete, each event exactly once", async () => {
  const instance = twinsInstance("bulk");
  const subscriber = subscribe("bulk-topic");
  const connection = serviceBus.connectionString("bulk-topic");
  await createEndpoint(host, instance, "bulk", { primary: connection, secondary: connection });
  const events = Array.from({ length: 500 }, (_, index) =>
    cloudEvent(`bulk-${index}`, { index, pad: "x".repeat(200) }),
  );
  await ingest(host, instance, events);
  await waitUntil(() => subscriber.received.length >= 500, 60_000, "500 events");
  // Nothing more arrives after a pause: no duplicates.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(subscriber.ids().sort()).toEqual(events.map((event) => event.id).sort());
});

it("delivers a compressed message (eventsGzip) a producer put on the queue, and a plain one beside it", async () => {
  const instance = twinsInstance("zipped");
  const subscriber = subscribe("zipped-topic");
  const connection = serviceBus.connectionString("zipped-topic");
  await createEndpoint(host, instance, "zipped", { primary: connection, secondary: connection });
  const zippedEvents = Array.from({ length: 300 }, (_, index) => cloudEvent(`zipped-${index}`, { index }));
  const plainEvents = [cloudEvent("plain-1"), cloudEvent("plain-2")];
  const queue = new QueueClient(sharedStandIns().storageConnectionString, host.config.TWIN_EVENTS_QUEUE);
  const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
  // As a producer would write it: gzip of the events' JSON array, base64, inside the usual base64 JSON.
  const eventsGzip = gzipSync(JSON.stringify(zippedEvents)).toString("base64");
  await queue.sendMessage(base64Json({ twinsInstanceId: instance, eventsGzip }));
  await queue.sendMessage(base64Json({ twinsInstanceId: instance, events: plainEvents }));
  await waitUntil(() => subscriber.received.length >= 302, 60_000, "302 events");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(subscriber.ids().sort()).toEqual([...zippedEvents, ...plainEvents].map((event) => event.id).sort());
});

it("delivers through the secondary connection when the primary cannot connect", async () => {
  const instance = twinsInstance("failover");
  const subscriber = subscribe("failover-topic");
  await createEndpoint(host, instance, "failover", {
    primary: unreachableConnectionString(await closedPort(), "failover-topic"),
    secondary: serviceBus.connectionString("failover-topic"),
  });
  await ingest(host, instance, [cloudEvent("via-secondary")]);
  await waitUntil(() => subscriber.received.length === 1, 60_000, "the event via the secondary");
  expect(subscriber.ids()).toEqual(["via-secondary"]);
});

it("retries, then dead-letters to {container}/{endpoint}/{yyyy}/{MM}/{dd}/{HH}/{id}.json with the reason", async () => {
  const instance = twinsInstance("deadletter");
  const sasUrl = await deadLetterUrl();
  const port = await closedPort();
  await createEndpoint(host, instance, "doomed", {
    primary: unreachableConnectionString(port, "nowhere"),
    secondary: unreachableConnectionString(port, "nowhere"),
    deadLetter: sasUrl,
  });
  const event = cloudEvent("evt-dead", { reading: 42 });
  const before = new Date();
  await ingest(host, instance, [event]);
  await waitUntil(async () => (await listBlobs(sasUrl)).length > 0, 90_000, "the dead-letter blob");
  const after = new Date();
  const blobs = await listBlobs(sasUrl);

  expect(blobs).toHaveLength(1);
  const [blob] = blobs;
  expect([
    deadLetterBlobName("doomed", "evt-dead", before),
    deadLetterBlobName("doomed", "evt-dead", after),
  ]).toContain(blob?.name);
  expect(blob?.body).toEqual({ ...event, traceparent: expect.stringMatching(/^00-/) });
  expect(blob?.metadata).toMatchObject({
    deadletterreason: "MaxDeliveryAttemptsExceeded",
    deliveryattempts: "3",
  });
  expect(blob?.metadata.lasterror).toMatch(/\S/);
  expect(blob?.metadata.lasterror).not.toContain("SAS_KEY_VALUE");
  const summaries = host.logs
    .filter((entry) => entry.message.startsWith("twin events:"))
    .map((entry) => entry.message);
  expect(summaries.some((line) => line.includes("retried=1"))).toBe(true);
  expect(summaries.some((line) => line.includes("deadLettered=1"))).toBe(true);
});

it("puts undeliverable events of an endpoint without a dead-letter secret on the poison queue, with the reason", async () => {
  const instance = twinsInstance("poisoned");
  const port = await closedPort();
  await createEndpoint(host, instance, "no-dl", {
    primary: unreachableConnectionString(port, "nowhere"),
    secondary: unreachableConnectionString(port, "nowhere"),
  });
  await ingest(host, instance, [cloudEvent("evt-poison")]);
  let record: Record<string, unknown> | undefined;
  await waitUntil(
    async () => {
      record = (await poisonRecords(host)).find((item) => item.endpointName === "no-dl");
      return record !== undefined;
    },
    90_000,
    "the poison record",
  );
  expect(record).toMatchObject({
    reason: "NoDeadLetterSecret",
    twinsInstanceId: instance,
    endpointName: "no-dl",
    attempts: 3,
    events: [cloudEvent("evt-poison")],
  });
});

it("sends the healthy endpoint exactly one copy of each event while another endpoint keeps failing", async () => {
  const instance = twinsInstance("mixed");
  const subscriber = subscribe("healthy-topic");
  const sasUrl = await deadLetterUrl();
  const port = await closedPort();
  const healthy = serviceBus.connectionString("healthy-topic");
  await createEndpoint(host, instance, "healthy", { primary: healthy, secondary: healthy });
  await createEndpoint(host, instance, "failing", {
    primary: unreachableConnectionString(port, "t"),
    secondary: unreachableConnectionString(port, "t"),
    deadLetter: sasUrl,
  });
  const events = Array.from({ length: 20 }, (_, index) => cloudEvent(`mixed-${index}`));
  await ingest(host, instance, events);
  // Wait until the failing endpoint has used up every retry and dead-lettered everything.
  await waitUntil(async () => (await listBlobs(sasUrl)).length === 20, 90_000, "20 dead letters");
  await waitUntil(() => subscriber.received.length >= 20, 30_000, "20 deliveries");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(subscriber.ids().sort()).toEqual(events.map((event) => event.id).sort());
});

it("discards the events of an instance without endpoints, and counts them", async () => {
  await ingest(host, twinsInstance("no-endpoints"), [cloudEvent("nowhere-1"), cloudEvent("nowhere-2")]);
  await waitUntil(
    () =>
      host.logs.some(
        (entry) => entry.message.startsWith("twin events:") && entry.message.includes("discarded=2"),
      ),
    30_000,
    "the discard count",
  );
});

it("poisons a message on the queue that is not a twin-events message, keeping it", async () => {
  const queue = new QueueClient(sharedStandIns().storageConnectionString, host.config.TWIN_EVENTS_QUEUE);
  await queue.sendMessage(Buffer.from(JSON.stringify({ hello: "world" })).toString("base64"));
  await waitUntil(
    async () => (await poisonRecords(host)).some((record) => record.reason === "InvalidMessage"),
    30_000,
    "the invalid message on the poison queue",
  );
  const record = (await poisonRecords(host)).find((item) => item.reason === "InvalidMessage");
  expect(record?.message).toEqual({ hello: "world" });
});
