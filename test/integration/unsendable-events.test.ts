import { QueueClient } from "@azure/storage-queue";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  deadLetterUrl,
  listBlobs,
  type Subscriber,
  twinsInstance,
  waitUntil,
} from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";
import type { TestHost } from "../support/test-host";

// One event that can never be sent (an id over the 128 characters of a Service Bus messageId) must
// not take its neighbours down: ingest refuses it with a 400 while unrelated producers' requests,
// group-committed at the same moment, go through; and when it reaches delivery anyway (put on the
// queue directly), the client's refusal sets it aside, dead-lettered at each endpoint, and the
// rest of its message is delivered.
jest.setTimeout(120_000);

let stack: DeliveryStack;
let host: TestHost;
const instance = twinsInstance("unsendable");
const subscribers: Subscriber[] = [];
const deadLetters: string[] = [];
beforeAll(async () => {
  stack = await DeliveryStack.start();
  host = stack.host;
  for (const name of ["first-ep", "second-ep"]) {
    const connection = stack.serviceBus.connectionString(`${name}-topic`);
    const deadLetter = await deadLetterUrl();
    deadLetters.push(deadLetter);
    await createEndpoint(host, instance, name, { primary: connection, secondary: connection, deadLetter });
    subscribers.push(stack.subscribe(`${name}-topic`));
  }
});
afterAll(() => stack.stop());

async function post(events: unknown[]): Promise<Response> {
  return host.request(`${instance}/events`, {
    method: "POST",
    body: JSON.stringify(events),
    headers: { "content-type": "application/cloudevents-batch+json" },
  });
}

async function everySubscriberGot(ids: string[]): Promise<void> {
  for (const subscriber of subscribers) {
    await waitUntil(() => ids.every((id) => subscriber.ids().includes(id)), 60_000, `${ids.length} events`);
  }
}

it("refuses an id of 129 characters (or 65 emoji, 130 UTF-16 units) with a 400 naming the event and the rule, and delivers the concurrent producers' events", async () => {
  const longest = "m".repeat(128);
  const requests = [
    post([cloudEvent("producer-a-1"), cloudEvent(longest)]),
    post([cloudEvent("producer-b-ok"), cloudEvent("x".repeat(129))]),
    post([cloudEvent("producer-c-1")]),
    post([cloudEvent("😀".repeat(65))]),
    post([cloudEvent("producer-d-1"), cloudEvent("producer-d-2")]),
  ];
  const responses = await Promise.all(requests);

  expect(responses.map((response) => response.status)).toEqual([202, 400, 202, 400, 202]);
  for (const [response, index] of [
    [responses[1] as Response, 1],
    [responses[3] as Response, 0],
  ] as const) {
    const { error } = (await response.json()) as {
      error: { message: string; target: string; details: { code: string; message: string }[] };
    };
    expect(error.target).toBe(`[${index}].id`);
    expect(error.details).toEqual([
      {
        code: "EventIdTooLong",
        message: expect.stringMatching(/at most 128 \(the Service Bus messageId limit\)/),
        target: `[${index}].id`,
      },
    ]);
    expect(error.details[0]?.message).toMatch(new RegExp(`^Event ${index} \\(id "`));
  }
  const delivered = ["producer-a-1", longest, "producer-c-1", "producer-d-1", "producer-d-2"];
  await everySubscriberGot(delivered);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (const subscriber of subscribers) expect(subscriber.ids().sort()).toEqual([...delivered].sort());
});

it("delivers the rest of a queue message that holds an unsendable event, and dead-letters that one at each endpoint at once", async () => {
  const tooLong = `queued-${"y".repeat(130)}`;
  const queue = new QueueClient(sharedStandIns().storageConnectionString, host.config.TWIN_EVENTS_QUEUE);
  const message = {
    twinsInstanceId: instance,
    events: [cloudEvent("queued-1"), cloudEvent(tooLong), cloudEvent("queued-2")],
  };
  await queue.sendMessage(Buffer.from(JSON.stringify(message)).toString("base64"));

  await everySubscriberGot(["queued-1", "queued-2"]);
  for (const deadLetter of deadLetters) {
    await waitUntil(async () => (await listBlobs(deadLetter)).length > 0, 60_000, "the dead letter");
    const blobs = await listBlobs(deadLetter);
    expect(blobs.map((blob) => (blob.body as { id: string }).id)).toEqual([tooLong]);
    expect(blobs[0]?.metadata).toMatchObject({
      deadletterreason: "MessageRefused",
      deliveryattempts: "1",
      lasterror: expect.stringMatching(/messageId.*128/),
    });
  }
  for (const subscriber of subscribers) expect(subscriber.ids()).not.toContain(tooLong);
  const lines = host.logs.map((entry) => entry.message).filter((line) => line.includes("MessageRefused"));
  expect(lines.filter((line) => line.startsWith("twin event dead-lettered:"))).toHaveLength(2);
});
