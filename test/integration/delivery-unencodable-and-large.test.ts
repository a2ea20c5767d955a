import { randomBytes } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { QueueClient } from "@azure/storage-queue";
import { MAX_QUEUE_MESSAGE_BYTES } from "../../src/events/queue-message";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  deadLetterUrl,
  listBlobs,
  poisonRecords,
  type Subscriber,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";
import type { TestHost } from "../support/test-host";

// Issue 28, items 2 and 3, over the wire, with messages producers put on the events queue
// themselves: one event no client can encode (data nested 100,000 deep) must not fail the events
// beside it, and a large event (100 KB, or one that fits no retry message even alone) must not
// make its retry fail. Each event reaches each working endpoint once, every other outcome has its
// reason, and no invocation fails (a failed one is run again, resending what it had sent).
jest.setTimeout(180_000);

let stack: DeliveryStack;
let host: TestHost;
let queue: QueueClient;

beforeAll(async () => {
  stack = await DeliveryStack.start();
  host = stack.host;
  queue = new QueueClient(sharedStandIns().storageConnectionString, host.config.TWIN_EVENTS_QUEUE);
});
afterAll(() => stack.stop());

/** A message as a producer writes it, from its JSON text (a deep one cannot be made by JSON.stringify). */
async function putText(json: string): Promise<void> {
  await queue.sendMessage(Buffer.from(json).toString("base64"));
}

/** The compressed form: the events' JSON array gzipped, inside the message's own base64. */
async function putZipped(instance: string, eventsJson: string): Promise<void> {
  const eventsGzip = gzipSync(eventsJson, { level: 9 }).toString("base64");
  await putText(JSON.stringify({ twinsInstanceId: instance, eventsGzip }));
}

/** Where the lines of the tests still to come begin: a test that expects failures moves it past them. */
let logsFrom = 0;

function logLines(pattern: RegExp): string[] {
  return host.logs
    .slice(logsFrom)
    .map((entry) => entry.message)
    .filter((line) => pattern.test(line));
}

/** Invocations that failed: the host would run each again, sending its events again. */
function failedInvocations(): string[] {
  return logLines(/^Executed .*\(Failed/);
}

function counts(ids: string[]): Record<string, number> {
  const result: Record<string, number> = {};
  for (const id of ids) result[id] = (result[id] ?? 0) + 1;
  return result;
}

async function recordsOf(instance: string): Promise<Record<string, unknown>[]> {
  return (await poisonRecords(host)).filter((record) => record.twinsInstanceId === instance);
}

/** An endpoint on a topic of the stand-in, with a dead-letter container. */
async function workingEndpoint(instance: string, name: string): Promise<Subscriber> {
  const connection = stack.serviceBus.connectionString(`${name}-topic`);
  await createEndpoint(host, instance, name, {
    primary: connection,
    secondary: connection,
    deadLetter: await deadLetterUrl(),
  });
  return stack.subscribe(`${name}-topic`);
}

/** An endpoint whose broker's port is closed; with a dead-letter container when given one. */
async function brokenEndpoint(instance: string, name: string, deadLetter?: string): Promise<void> {
  const connection = unreachableConnectionString(await closedPort(), "nowhere");
  await createEndpoint(host, instance, name, {
    primary: connection,
    secondary: connection,
    ...(deadLetter !== undefined && { deadLetter }),
  });
}

/**
 * An instance with three endpoints: `{prefix}-ok` working, and two whose broker is unreachable,
 * `{prefix}-down` with a dead-letter container and `{prefix}-nodl` without one.
 */
async function threeEndpoints(instanceName: string, prefix: string) {
  const instance = twinsInstance(instanceName);
  const subscriber = await workingEndpoint(instance, `${prefix}-ok`);
  const deadLetter = await deadLetterUrl();
  await brokenEndpoint(instance, `${prefix}-down`, deadLetter);
  await brokenEndpoint(instance, `${prefix}-nodl`);
  return { instance, subscriber, deadLetter };
}

/** Time for the host to run a failed invocation again (host.json: visibilityTimeout 10 s). */
const pastARerun = () => new Promise((resolve) => setTimeout(resolve, 12_000));

describe("an event no client can encode (issue 28, item 2)", () => {
  it("delivers the three good events of its message once to each endpoint, and poisons it once with reason EventTooDeep", async () => {
    const instance = twinsInstance("too-deep");
    const subscribers = [
      await workingEndpoint(instance, "deep-a"),
      await workingEndpoint(instance, "deep-b"),
    ];
    const depth = 100_000;
    const deep = `{"id":"deep-1","source":"/twins/test","specversion":"1.0","type":"Twin.Update","data":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const good = ["good-1", "good-2", "good-3"];
    const [first, second, third] = good.map((id) => JSON.stringify(cloudEvent(id)));
    await putZipped(instance, `[${first},${deep},${second},${third}]`);

    await waitUntil(async () => (await recordsOf(instance)).length > 0, 60_000, "the poison record");
    for (const subscriber of subscribers) {
      await waitUntil(() => good.every((id) => subscriber.ids().includes(id)), 60_000, "the good events");
    }
    await pastARerun();
    for (const subscriber of subscribers) {
      expect(counts(subscriber.ids())).toEqual({ "good-1": 1, "good-2": 1, "good-3": 1 });
    }
    expect(failedInvocations()).toEqual([]);
    expect(logLines(/^twin events: delivered=6 retried=0 deadLettered=0 poisoned=1/)).toHaveLength(1);
    // Once for the message, not per endpoint: it went to none. Named, with why, not kept (its JSON cannot be made).
    const records = await recordsOf(instance);
    expect(records).toEqual([
      {
        reason: "EventTooDeep",
        detail: expect.stringMatching(/^the event nests deeper than 100 levels .*sent to no endpoint/),
        twinsInstanceId: instance,
        poisonedAt: expect.any(String),
        eventLeftOut: { id: "deep-1", source: "/twins/test", type: "Twin.Update" },
      },
    ]);
    expect(logLines(/^twin event poisoned: .*event="deep-1" reason="EventTooDeep"/)).toHaveLength(1);
  });

  // In Azure's Node.js worker, @azure/functions camel-cases the trigger's binding data (the
  // message's parsed JSON among it) recursively before the function runs: a message nesting some
  // 3,000 deep fails there, each time, whatever the function does. The host retries it and moves
  // it to the poison queue as it is: kept, not dropped, and the failure logged with its cause.
  it("leaves a message nesting 20,000 deep, which the worker cannot hand over, to the host's poison queue, unchanged", async () => {
    const instance = twinsInstance("too-deep-invalid");
    const depth = 20_000;
    const event = `{"id":"deep-2","source":"/twins/test","specversion":"1.0","data":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const text = Buffer.from(`{"twinsInstanceId":"${instance}","events":[${event}]}`).toString("base64");
    await queue.sendMessage(text);
    const poisonQueue = new QueueClient(sharedStandIns().storageConnectionString, `${queue.name}-poison`);
    const poisoned = async () =>
      (await poisonQueue.peekMessages({ numberOfMessages: 32 })).peekedMessageItems;
    const held = async () => (await poisoned()).filter((item) => item.messageText === text);
    await waitUntil(async () => (await held()).length > 0, 120_000, "the host's poison queue");
    expect(await held()).toHaveLength(1);
    expect(failedInvocations().every((line) => line.includes("Maximum call stack size exceeded"))).toBe(true);
    expect(failedInvocations()).toHaveLength(5);
    await poisonQueue.clearMessages();
    logsFrom = host.logs.length;
  });
});

describe("a large event (issue 28, item 3)", () => {
  it("poisons an invalid message whose record would be over 64 KiB with as much of its start as fits", async () => {
    // As many quotes as a message holds: the record, with its reason, does not hold them all, and
    // each quote of the message's text is escaped again in the record's `messageStart`.
    const withQuotes = (count: number) => ({
      twinsInstanceId: twinsInstance("quotes"),
      events: '"'.repeat(count),
    });
    let count = 24_600;
    while (Buffer.from(JSON.stringify(withQuotes(count))).toString("base64").length > MAX_QUEUE_MESSAGE_BYTES)
      count--;
    const original = withQuotes(count);
    const before = (await poisonRecords(host)).length;
    await putText(JSON.stringify(original));

    await waitUntil(async () => (await poisonRecords(host)).length > before, 60_000, "the poison record");
    await pastARerun();
    expect(failedInvocations()).toEqual([]);
    const record = (await poisonRecords(host)).find((each) => each.messageStart !== undefined);
    expect(record).toMatchObject({ reason: "InvalidMessage", detail: expect.stringMatching(/^events: /) });
    expect(JSON.stringify(original).startsWith(String(record?.messageStart))).toBe(true);
    expect(String(record?.messageStart).length).toBeGreaterThan(10_000);
  });

  it("retries a 100 KB event compressed: the working endpoint gets each event once, the broken ones dead-letter or poison all three", async () => {
    const { instance, subscriber, deadLetter } = await threeEndpoints("large-retry", "large");
    // About 100 KB of readings: over a plain message's 48 KiB of JSON, well under the topic's 256 KB.
    const readings = Array.from({ length: 2500 }, (_, index) => ({
      sensor: `s-${index % 40}`,
      at: index,
      value: index * 0.25,
    }));
    const large = cloudEvent("large-1", { readings });
    expect(Buffer.byteLength(JSON.stringify(large))).toBeGreaterThan(100_000);
    const events = [cloudEvent("small-1"), large, cloudEvent("small-2")];
    await putZipped(instance, JSON.stringify(events));

    const ids = events.map((event) => event.id).sort();
    await waitUntil(async () => (await listBlobs(deadLetter)).length === 3, 90_000, "three dead letters");
    await waitUntil(async () => (await recordsOf(instance)).length > 0, 30_000, "the poison record");
    await pastARerun();
    expect(counts(subscriber.ids())).toEqual({ "small-1": 1, "large-1": 1, "small-2": 1 });
    expect(failedInvocations()).toEqual([]);
    const blobs = await listBlobs(deadLetter);
    expect(blobs.map((blob) => (blob.body as { id: string }).id).sort()).toEqual(ids);
    expect(blobs.find((blob) => (blob.body as { id: string }).id === "large-1")?.body).toEqual(large);
    for (const blob of blobs) {
      expect(blob.metadata).toMatchObject({
        deadletterreason: "MaxDeliveryAttemptsExceeded",
        deliveryattempts: "3",
      });
    }
    // The endpoint without a dead-letter container: its record carries the three, compressed.
    const records = await recordsOf(instance);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      reason: "NoDeadLetterSecret",
      endpointName: "large-nodl",
      attempts: 3,
    });
    const zipped = Buffer.from(String(records[0]?.eventsGzip), "base64");
    expect(JSON.parse(gunzipSync(zipped).toString("utf8"))).toEqual(events);

    // Its dead letters requeued once the endpoint is fixed: the large one too, compressed.
    const fixed = stack.subscribe("large-fixed-topic");
    const connection = stack.serviceBus.connectionString("large-fixed-topic");
    const endpoint = `${instance}/endpoints/large-down`;
    const patch = { queuePrimaryConnectionString: connection, queueSecondaryConnectionString: connection };
    expect((await host.request(endpoint, { method: "PATCH", body: JSON.stringify(patch) })).status).toBe(200);
    const redelivery = await host.request(`${endpoint}/redeliverDeadLetters?api-version=2026-11-01`, {
      method: "POST",
    });
    expect(await redelivery.json()).toEqual({ requeued: 3, skipped: 0, failed: 0 });
    await waitUntil(() => fixed.received.length >= 3, 60_000, "the redelivered events");
    expect(counts(fixed.ids())).toEqual({ "small-1": 1, "large-1": 1, "small-2": 1 });
    expect(fixed.received.find((message) => message.messageId === "large-1")?.body).toEqual({ readings });
  });

  it("dead-letters at its first failure an event no retry message can carry, even alone, and names it in the poison record where there is no container", async () => {
    const { instance, subscriber, deadLetter } = await threeEndpoints("large-unfit", "unfit");
    // Incompressible, and as large as a plain message put on the queue can carry: a retry message,
    // whose envelope is larger (the endpoint, the attempt, the last error), cannot.
    const noise = randomBytes(40_000);
    const envelope = (event: unknown) => JSON.stringify({ twinsInstanceId: instance, events: [event] });
    const huge = (length: number) => ({
      ...cloudEvent("huge-1"),
      data_base64: noise.subarray(0, length).toString("base64"),
    });
    let length = 40_000;
    while (Buffer.from(envelope(huge(length))).toString("base64").length > MAX_QUEUE_MESSAGE_BYTES)
      length -= 3;
    const event = huge(length);
    // A retry message could carry it neither plain nor compressed (noise does not compress).
    const retry = { twinsInstanceId: instance, retry: { endpointName: "unfit-down", attempt: 1 } };
    const eventsGzip = gzipSync(JSON.stringify([event]), { level: 9 }).toString("base64");
    for (const form of [
      { ...retry, events: [event] },
      { ...retry, eventsGzip },
    ]) {
      expect(Buffer.from(JSON.stringify(form)).toString("base64").length).toBeGreaterThan(
        MAX_QUEUE_MESSAGE_BYTES,
      );
    }
    await putText(envelope(event));

    await waitUntil(async () => (await listBlobs(deadLetter)).length === 1, 60_000, "the dead letter");
    await waitUntil(async () => (await recordsOf(instance)).length > 0, 30_000, "the poison record");
    await pastARerun();
    expect(counts(subscriber.ids())).toEqual({ "huge-1": 1 });
    expect(failedInvocations()).toEqual([]);
    const [blob] = await listBlobs(deadLetter);
    expect(blob?.body).toEqual(event);
    expect(blob?.metadata).toMatchObject({
      deadletterreason: "MaxDeliveryAttemptsExceeded",
      deliveryattempts: "1",
      lasterror: expect.stringMatching(
        /no retry is possible: the event is \d+ bytes of JSON, more than one queue message/,
      ),
    });
    expect(await recordsOf(instance)).toEqual([
      expect.objectContaining({
        reason: "NoDeadLetterSecret",
        endpointName: "unfit-nodl",
        attempts: 1,
        detail: expect.stringMatching(/the event is not kept whole: it is \d+ bytes of JSON/),
        eventLeftOut: { id: "huge-1", source: "/twins/test", type: "Twin.Update" },
      }),
    ]);
  });
});
