import {
  ENDPOINT_NO_ROLE,
  ENDPOINT_SENDER,
  userAssignedIdentityId,
} from "../../dev/stand-ins/managed-identity/identities";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  ingest,
  poisonRecords,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import { blobsOf, IdentityDelivery } from "../support/identity-delivery-kit";
import type { TestHost } from "../support/test-host";

// CONTRACT §8 over the wire: IdentityBased endpoints deliver, dead-letter and redeliver as the
// app's managed identities, beside KeyBased ones in the same instance. Nothing is mocked: the
// host's ManagedIdentityCredential gets tokens from the managed-identity stand-in, the Service Bus
// stand-in checks them on its AMQPS listener (and who holds the sender role), Azurite takes them
// over HTTPS.
jest.setTimeout(120_000);

let delivery: IdentityDelivery;
let host: TestHost;
beforeAll(async () => {
  delivery = await IdentityDelivery.start();
  host = delivery.stack.host;
});
afterAll(async () => {
  if (process.env.DEBUG_LOGS)
    for (const entry of host.logs) console.log(entry.level, entry.message.slice(0, 600));
  await delivery.stop();
});

const identityBody = (topic: string, extra: Record<string, unknown> = {}) => ({
  authenticationType: "IdentityBased",
  endpointUri: delivery.endpointUri,
  entityPath: topic,
  ...extra,
});
const userAssigned = (resourceId: string) => ({
  identity: { type: "UserAssigned", userAssignedIdentity: resourceId },
});

async function putEndpoint(instance: string, name: string, body: unknown, method = "PUT"): Promise<void> {
  const response = await host.request(`${instance}/endpoints/${name}`, {
    method,
    body: JSON.stringify(body),
  });
  if (response.status >= 300)
    throw new Error(`endpoint ${name}: ${response.status} ${await response.text()}`);
}

it("delivers to both kinds side by side in one instance: system- and user-assigned identities, and keys with failover", async () => {
  const instance = twinsInstance("mixed");
  const topics = { system: "t-system", team: "t-team", keyed: "t-keyed" };
  const subscribers = Object.fromEntries(
    Object.entries(topics).map(([name, topic]) => [name, delivery.stack.subscribe(topic)]),
  );
  await putEndpoint(instance, "by-system", identityBody(topics.system));
  await putEndpoint(instance, "by-team", identityBody(topics.team, userAssigned(ENDPOINT_SENDER.resourceId)));
  // The KeyBased endpoint's primary cannot be reached: its events go through the secondary.
  await createEndpoint(host, instance, "by-keys", {
    primary: unreachableConnectionString(await closedPort(), topics.keyed),
    secondary: delivery.stack.serviceBus.connectionString(topics.keyed),
  });
  const ids = ["m1", "m2", "m3"];
  await ingest(
    host,
    instance,
    ids.map((id) => cloudEvent(id)),
  );
  await waitUntil(
    () => Object.values(subscribers).every((subscriber) => subscriber.ids().length === ids.length),
    60_000,
    "every endpoint to receive every event",
  );
  for (const subscriber of Object.values(subscribers)) expect(subscriber.ids().sort()).toEqual(ids);
  // One credential per identity, its token cached: two identities, one resource, two tokens.
  expect(delivery.identity.tokensIssued()).toBe(2);
  await ingest(host, instance, [cloudEvent("m4")]);
  await waitUntil(() => subscribers.team?.ids().includes("m4") ?? false, 60_000, "the next event");
  expect(delivery.identity.tokensIssued()).toBe(2);
});

it("dead-letters as the identity when it lacks the sender role, naming the role; redelivers once the endpoint can send", async () => {
  const instance = twinsInstance("no-role");
  const { url, container } = await delivery.deadLetterContainer();
  await putEndpoint(
    instance,
    "refused",
    identityBody("t-refused", { deadLetterUri: url, ...userAssigned(ENDPOINT_NO_ROLE.resourceId) }),
  );
  await ingest(host, instance, [cloudEvent("r1")]);
  await waitUntil(async () => (await blobsOf(container)).length === 1, 60_000, "the dead letter");
  const [blob] = await blobsOf(container);
  expect(blob?.name).toMatch(/^refused\/\d{4}\/\d{2}\/\d{2}\/\d{2}\/r1\.json$/);
  expect(blob?.body).toMatchObject({ id: "r1" });
  expect(blob?.metadata.deadletterreason).toBe("MaxDeliveryAttemptsExceeded");
  expect(blob?.metadata.lasterror).toContain(
    `the user-assigned identity ${ENDPOINT_NO_ROLE.resourceId} may not send to topic 't-refused' of ${delivery.endpointUri.slice(5, -1)}: grant it the Azure Service Bus Data Sender role`,
  );
  expect(blob?.metadata.deadlettermark).toMatch(/^[0-9a-f]{64}$/);
  expect(host.logs.some((entry) => entry.message.includes("Azure Service Bus Data Sender"))).toBe(true);

  // The owner switches to an identity that holds the role (or grants it), then redelivers.
  const subscriber = delivery.stack.subscribe("t-refused");
  await putEndpoint(instance, "refused", userAssigned(ENDPOINT_SENDER.resourceId), "PATCH");
  const redeliver = () =>
    host.request(`${instance}/endpoints/refused/redeliverDeadLetters`, { method: "POST", body: "{}" });
  const first = await redeliver();
  expect([first.status, await first.json()]).toEqual([200, { requeued: 1, skipped: 0, failed: 0 }]);
  await waitUntil(() => subscriber.ids().includes("r1"), 60_000, "the redelivered event");
  // Once: the dead letter is marked redelivered, so a second plain call finds nothing to requeue.
  expect(await (await redeliver()).json()).toMatchObject({ requeued: 0 });
  expect(subscriber.ids()).toEqual(["r1"]);
});

it("poisons what it can neither send nor dead-letter for an identity that gets no token, saying so", async () => {
  // Listed in the setting but not attached to the app: the identity endpoint knows no such identity.
  const ghost = userAssignedIdentityId("not-attached");
  const ghostly = await IdentityDelivery.start({
    ENDPOINT_USER_ASSIGNED_IDENTITIES: [ghost, ENDPOINT_SENDER.resourceId].join(","),
  });
  try {
    const instance = twinsInstance("ghost");
    const { url, container } = await ghostly.deadLetterContainer();
    const response = await ghostly.stack.host.request(`${instance}/endpoints/ghost`, {
      method: "PUT",
      body: JSON.stringify({
        authenticationType: "IdentityBased",
        endpointUri: ghostly.endpointUri,
        entityPath: "t-ghost",
        deadLetterUri: url,
        ...userAssigned(ghost),
      }),
    });
    expect(response.status).toBe(201);
    await ingest(ghostly.stack.host, instance, [cloudEvent("g1")]);
    await waitUntil(
      async () => (await poisonRecords(ghostly.stack.host)).some((record) => record.endpointName === "ghost"),
      60_000,
      "the poison record",
    );
    const record = (await poisonRecords(ghostly.stack.host)).find((each) => each.endpointName === "ghost");
    expect(record?.reason).toBe("DeadLetterWriteFailed");
    expect(String(record?.detail)).toContain(`the user-assigned identity ${ghost} could get no token`);
    expect(String(record?.lastError)).toContain(`the user-assigned identity ${ghost} could get no token`);
    expect(await blobsOf(container)).toEqual([]);
  } finally {
    await ghostly.stop();
  }
});
