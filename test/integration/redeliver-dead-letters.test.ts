import type { RunningServiceBus } from "../../dev/stand-ins/service-bus";
import { clientFor } from "../client/fixtures";
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

// POST {endpointId}/redeliverDeadLetters (docs/api.md), over the wire: events dead-lettered while
// the endpoint's broker was unreachable are re-queued once it points at the Service Bus stand-in.
let serviceBus: RunningServiceBus;
let host: TestHost;
jest.setTimeout(180_000);

let stack: DeliveryStack;
beforeAll(async () => {
  stack = await DeliveryStack.start({ DELIVERY_MAX_ATTEMPTS: "2" });
  ({ serviceBus, host } = stack);
});

afterAll(() => stack.stop());

function deadLetteredSince(fromLog: number): number {
  return host.logs
    .slice(fromLog)
    .map((entry) => /^twin events: .*deadLettered=(\d+)/.exec(entry.message)?.[1])
    .reduce((sum, count) => sum + Number(count ?? 0), 0);
}

async function redeliver(instance: string, name: string, body?: unknown): Promise<Response> {
  return host.request(`${instance}/endpoints/${name}/redeliverDeadLetters?api-version=2026-11-01`, {
    method: "POST",
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

async function counts(instance: string, name: string, body?: unknown): Promise<unknown> {
  const response = await redeliver(instance, name, body);
  expect(response.status).toBe(200);
  return response.json();
}

/** An endpoint whose broker is unreachable, three events dead-lettered, then the endpoint fixed. */
async function deadLetteredThenFixed(instanceName: string, name: string, topic: string) {
  const instance = twinsInstance(instanceName);
  const sasUrl = await deadLetterUrl();
  const port = await closedPort();
  await createEndpoint(host, instance, name, {
    primary: unreachableConnectionString(port, topic),
    secondary: unreachableConnectionString(port, topic),
    deadLetter: sasUrl,
  });
  const ids = ["r-1", "r/2", "r-3"];
  const fromLog = host.logs.length;
  await ingest(
    host,
    instance,
    ids.map((id) => cloudEvent(id)),
  );
  await waitUntil(() => deadLetteredSince(fromLog) >= 3, 90_000, "3 events dead-lettered");
  const subscriber = stack.subscribe(topic);
  const connection = serviceBus.connectionString(topic);
  const patched = await host.request(`${instance}/endpoints/${name}`, {
    method: "PATCH",
    body: JSON.stringify({
      queuePrimaryConnectionString: connection,
      queueSecondaryConnectionString: connection,
    }),
  });
  expect(patched.status).toBe(200);
  return { instance, sasUrl, ids, subscriber };
}

it("re-queues 3 dead letters to the fixed endpoint, marks them, skips them when repeated, and requeues them again with force", async () => {
  const { instance, sasUrl, ids, subscriber } = await deadLetteredThenFixed(
    "redeliver",
    "fixed",
    "fixed-topic",
  );

  expect(await counts(instance, "fixed")).toEqual({ requeued: 3, skipped: 0, failed: 0 });
  await waitUntil(() => subscriber.received.length >= 3, 60_000, "3 redelivered events");
  expect(subscriber.ids().sort()).toEqual([...ids].sort());

  const blobs = await listBlobs(sasUrl);
  expect(blobs).toHaveLength(3);
  for (const blob of blobs) {
    expect(blob.metadata).toMatchObject({
      deadletterreason: "MaxDeliveryAttemptsExceeded",
      deliveryattempts: "2",
      redelivered: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  }

  expect(await counts(instance, "fixed", {})).toEqual({ requeued: 0, skipped: 3, failed: 0 });
  expect(await counts(instance, "fixed", { force: true })).toEqual({ requeued: 3, skipped: 0, failed: 0 });
  await waitUntil(() => subscriber.received.length >= 6, 60_000, "3 events redelivered again");
  expect(await listBlobs(sasUrl)).toHaveLength(3);

  // A window that holds none of them: before they were written.
  const before = { from: "2020-01-01T00:00:00Z", to: "2020-01-02T00:00:00Z", force: true };
  expect(await counts(instance, "fixed", before)).toEqual({ requeued: 0, skipped: 0, failed: 0 });
  // And one that holds them all, through the typed client.
  const client = clientFor(host);
  expect(
    await client.endpoints.redeliverDeadLetters(instance, "fixed", {
      from: new Date(Date.now() - 3_600_000),
      to: new Date(Date.now() + 60_000),
    }),
  ).toEqual({ requeued: 0, skipped: 3, failed: 0 });
  expect(
    await client.endpoints.redeliverDeadLetters(instance, "fixed", {
      force: true,
      to: "2020-01-01T00:00:00Z",
    }),
  ).toEqual({ requeued: 0, skipped: 0, failed: 0 });

  // By reason, compared exactly: another reason's dead letters are left alone, uncounted.
  expect(await counts(instance, "fixed", { reason: "TtlExpired", force: true })).toEqual({
    requeued: 0,
    skipped: 0,
    failed: 0,
  });
  expect(
    await client.endpoints.redeliverDeadLetters(instance, "fixed", { reason: "MaxDeliveryAttemptsExceeded" }),
  ).toEqual({ requeued: 0, skipped: 3, failed: 0 });
});

it("answers 400 for from after to or a bad field, 404 for a missing endpoint, 409 without a dead-letter secret", async () => {
  const instance = twinsInstance("redeliver-errors");
  const connection = serviceBus.connectionString("errors-topic");
  await createEndpoint(host, instance, "no-dead-letters", { primary: connection, secondary: connection });

  const reversed = await redeliver(instance, "no-dead-letters", {
    from: "2026-11-22T12:00:00Z",
    to: "2026-11-22T00:00:00Z",
  });
  expect(reversed.status).toBe(400);
  expect(await reversed.json()).toMatchObject({ error: { code: "InvalidRequestContent", target: "from" } });
  expect((await redeliver(instance, "no-dead-letters", { from: "yesterday" })).status).toBe(400);
  expect((await redeliver(instance, "no-dead-letters", { forse: true })).status).toBe(400);
  const wrongCase = await redeliver(instance, "no-dead-letters", { reason: "ttlexpired" });
  expect(wrongCase.status).toBe(400);
  expect(await wrongCase.json()).toMatchObject({
    error: { code: "InvalidRequestContent", target: "reason" },
  });

  const missing = await redeliver(instance, "nowhere-ep");
  expect(missing.status).toBe(404);

  const noSecret = await redeliver(instance, "no-dead-letters");
  expect(noSecret.status).toBe(409);
  expect(await noSecret.json()).toMatchObject({
    error: { code: "DeadLettersUnavailable", message: expect.stringContaining("deadLetterStorageSecret") },
  });
});
