import { randomBytes } from "node:crypto";
import { QueueClient } from "@azure/storage-queue";
import { expandCompressedEvents } from "../../src/events/compressed-events";
import { MAX_QUEUE_MESSAGE_BYTES } from "../../src/events/queue-message";
import { expectArmError, expectHostAnswer } from "../support/arm";
import { closedPort } from "../support/closed-port";
import { sharedStandIns } from "../support/stand-ins-env";
import { startTestHost, type TestHost } from "../support/test-host";

// POST {twinsInstanceId}/events (docs/api.md, ingest): validated, then durably queued.
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000003/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/ingest-1";

let host: TestHost;
let queue: QueueClient;
beforeAll(async () => {
  host = await startTestHost();
  queue = new QueueClient(sharedStandIns().storageConnectionString, host.config.TWIN_EVENTS_QUEUE);
});
afterAll(() => host.stop());

function event(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    source: "/factory/line-1",
    specversion: "1.0",
    type: "Twin.Update",
    data: { value: id },
    ...extra,
  };
}

function post(body: unknown, contentType = "application/cloudevents-batch+json"): Promise<Response> {
  return host.request(`${INSTANCE}/events`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": contentType },
  });
}

/** Reads (and removes) everything on the queue, decoded. */
async function drainQueue(): Promise<
  { twinsInstanceId: string; receivedAt: string; events: { id: string }[] }[]
> {
  const messages = [];
  for (;;) {
    const { receivedMessageItems } = await queue.receiveMessages({ numberOfMessages: 32 });
    if (receivedMessageItems.length === 0) return messages;
    for (const item of receivedMessageItems) {
      expect(item.messageText.length).toBeLessThanOrEqual(MAX_QUEUE_MESSAGE_BYTES);
      // Many events go out compressed (eventsGzip): read back as delivery reads them.
      const expanded = await expandCompressedEvents(
        JSON.parse(Buffer.from(item.messageText, "base64").toString("utf8")),
      );
      if (!expanded.ok) throw new Error(expanded.detail);
      messages.push(
        expanded.message as { twinsInstanceId: string; receivedAt: string; events: { id: string }[] },
      );
      await queue.deleteMessage(item.messageId, item.popReceipt);
    }
  }
}

it("answers 202 with the count once a single event is on the queue", async () => {
  const response = await post(event("single"), "application/cloudevents+json");
  expect(response.status).toBe(202);
  expect(await response.json()).toEqual({ accepted: 1 });
  const [message] = await drainQueue();
  expect(message).toMatchObject({ twinsInstanceId: INSTANCE, events: [event("single")] });
  expect(Date.parse(message?.receivedAt ?? "")).not.toBeNaN();
});

it("splits a large batch across queue messages under 64 KiB, keeping every event once", async () => {
  // Incompressible data: the events go plain, many messages.
  const events = Array.from({ length: 500 }, (_, index) =>
    event(`bulk-${index}`, { data: { pad: randomBytes(300).toString("base64") } }),
  );
  const response = await post(events);
  expect(await response.json()).toEqual({ accepted: 500 });
  const messages = await drainQueue();
  expect(messages.length).toBeGreaterThan(1);
  expect(messages.flatMap((message) => message.events.map((item) => item.id)).sort()).toEqual(
    events.map((item) => item.id).sort(),
  );
});

it("packs a large compressible batch into far fewer messages, compressed, keeping every event once", async () => {
  const events = Array.from({ length: 1000 }, (_, index) =>
    event(`zip-${index}`, { data: { pad: "x".repeat(400) } }),
  );
  const response = await post(events);
  expect(await response.json()).toEqual({ accepted: 1000 });
  const messages = await drainQueue();
  // 1,000 events of about 550 bytes with their traceparent: 12 or more plain messages; compressed,
  // one per 256 KiB of JSON (COMPRESS_GROUP_BYTES).
  expect(messages.length).toBeLessThanOrEqual(3);
  expect(messages.flatMap((message) => message.events.map((item) => item.id))).toEqual(
    events.map((item) => item.id),
  );
});

it("accepts application/json too", async () => {
  expect((await post([event("plain")], "application/json")).status).toBe(202);
  await drainQueue();
});

it("answers 400 listing every bad event by index, and queues nothing", async () => {
  const response = await post([event("good"), { ...event("bad"), specversion: "0.3" }, { id: "x" }]);
  const error = await expectArmError(response, 400, "InvalidRequestContent", "[1].specversion");
  expect(error.details?.map((detail) => detail.target)).toEqual([
    "[1].specversion",
    "[2].source",
    "[2].specversion",
    "[2].type",
  ]);
  expect(await drainQueue()).toEqual([]);
});

it("answers 400 for an event with both data and data_base64, naming it by index and both fields, and queues nothing", async () => {
  // CloudEvents JSON format: the two are mutually exclusive. Delivery would send the bytes of
  // data_base64 and drop data; data null is data present all the same.
  for (const data of [{ value: "dropped" }, null]) {
    const response = await post([event("good"), event("both", { data, data_base64: "AAE=" })]);
    const error = await expectArmError(response, 400, "InvalidRequestContent", "[1]");
    expect(error.details).toEqual([
      {
        code: "MutuallyExclusiveProperties",
        message: expect.stringMatching(/^Event 1 has both 'data' and 'data_base64'/),
        target: "[1]",
      },
    ]);
  }
  expect(await drainQueue()).toEqual([]);
  // Either alone is taken.
  const alone = [event("data-only"), event("bytes-only", { data: undefined, data_base64: "AAE=" })];
  expect(await (await post(alone)).json()).toEqual({ accepted: 2 });
  const [message] = await drainQueue();
  expect(message?.events).toEqual([
    expect.objectContaining({ id: "data-only", data: { value: "data-only" } }),
    expect.objectContaining({ id: "bytes-only", data_base64: "AAE=" }),
  ]);
  expect(message?.events[1]).not.toHaveProperty("data");
});

it("answers 415 for a content type that is not a CloudEvents JSON type", async () => {
  await expectArmError(await post(event("x"), "text/plain"), 415, "UnsupportedMediaType");
  await expectArmError(await post(event("x"), "application/merge-patch+json"), 415, "UnsupportedMediaType");
});

it("answers 400 for an instance path that is not valid and for an empty batch", async () => {
  const bad = await host.request(`${INSTANCE.replace("ingest-1", "-bad")}/events`, {
    method: "POST",
    body: JSON.stringify(event("x")),
  });
  await expectArmError(bad, 400, "InvalidRequestContent", "instanceName");
  await expectArmError(await post([]), 400, "InvalidRequestContent");
});

it("needs the function key", async () => {
  const response = await host.request(`${INSTANCE}/events`, { method: "POST", body: "{}", key: null });
  await expectHostAnswer(response, 401);
});

it("answers 503 with Retry-After when the queue cannot be reached", async () => {
  const port = await closedPort();
  const unreachable = await startTestHost({
    AzureWebJobsStorage: sharedStandIns().storageConnectionString.replace(
      /QueueEndpoint=[^;]+/,
      `QueueEndpoint=http://127.0.0.1:${port}/devstoreaccount1`,
    ),
  });
  try {
    const response = await unreachable.request(`${INSTANCE}/events`, {
      method: "POST",
      body: JSON.stringify(event("lost?")),
    });
    await expectArmError(response, 503, "ServiceUnavailable");
    expect(response.headers.get("retry-after")).toBeTruthy();
  } finally {
    await unreachable.stop();
  }
});
