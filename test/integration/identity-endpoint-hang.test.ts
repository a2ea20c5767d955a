import { cloudEvent, createEndpoint, ingest, twinsInstance, waitUntil } from "../support/delivery-kit";
import { IdentityDelivery } from "../support/identity-delivery-kit";
import type { TestHost } from "../support/test-host";

// Issue 40's liveness break, kept as an attack: the app's managed identity endpoint takes the
// connection and never answers (the stand-in's hang switch). Every token request and every send
// is bounded (IDENTITY_TOKEN_TIMEOUT_MS, DELIVERY_SEND_TIMEOUT_MS, small here), a target that timed
// out is tried one attempt at a time, so another instance's KeyBased events go through while the
// hang lasts, the cause is logged, and the identity's events arrive once it ends, without a restart.
// The waits' bounds are not timings: the hang has no end, so without the bounds the awaited
// deliveries would never happen at all.
jest.setTimeout(180_000);

const TOKEN_TIMEOUT_MS = 300;
const SEND_TIMEOUT_MS = 1500;

let delivery: IdentityDelivery;
let host: TestHost;
beforeAll(async () => {
  delivery = await IdentityDelivery.start({
    IDENTITY_TOKEN_TIMEOUT_MS: String(TOKEN_TIMEOUT_MS),
    DELIVERY_SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
    DELIVERY_BACKOFF_BASE_SECONDS: "1",
    DELIVERY_BACKOFF_CAP_SECONDS: "1",
    DELIVERY_MAX_ATTEMPTS: "1000",
  });
  host = delivery.stack.host;
});
afterAll(async () => {
  if (process.env.DEBUG_LOGS)
    for (const entry of host.logs) console.log(entry.level, entry.message.slice(0, 600));
  await delivery?.stop();
});

it("holds only the hung identity's own events, says why, and delivers them once the identity endpoint answers again", async () => {
  delivery.identity.hang(true);
  const hungInstance = twinsInstance("hung-identity");
  const otherInstance = twinsInstance("keyed-neighbour");
  const hung = delivery.stack.subscribe("t-hung");
  const keyed = delivery.stack.subscribe("t-keyed-neighbour");
  const put = await host.request(`${hungInstance}/endpoints/by-identity`, {
    method: "PUT",
    body: JSON.stringify({
      authenticationType: "IdentityBased",
      endpointUri: delivery.endpointUri,
      entityPath: "t-hung",
    }),
  });
  expect(put.status).toBe(201);
  const connection = delivery.stack.serviceBus.connectionString("t-keyed-neighbour");
  await createEndpoint(host, otherInstance, "by-keys", { primary: connection, secondary: connection });

  // More of the hung instance's messages than the trigger runs at once (host.json: 8 + 4).
  const hungIds = Array.from({ length: 16 }, (_, index) => `h${index}`);
  await Promise.all(hungIds.map((id) => ingest(host, twinsInstance("hung-identity"), [cloudEvent(id)])));
  await waitUntil(() => delivery.identity.tokensHeld() > 0, 60_000, "a token request to hang");
  const keyedIds = ["k1", "k2", "k3"];
  for (const id of keyedIds) await ingest(host, otherInstance, [cloudEvent(id)]);
  await waitUntil(
    () => keyed.ids().length === keyedIds.length,
    60_000,
    "the neighbour's events during the hang",
  );
  expect(keyed.ids().sort()).toEqual(keyedIds);
  expect(hung.ids()).toEqual([]);

  // The cause, said as it is: no token in time, not a missing role or an AggregateError.
  await waitUntil(
    () => host.logs.some((entry) => entry.message.includes("could get no token in time")),
    60_000,
    "a retry line naming the timeout",
  );
  const retries = host.logs.filter((entry) =>
    entry.message.startsWith("twin events delivery failed, retry scheduled:"),
  );
  expect(retries.length).toBeGreaterThan(0);
  expect(retries.some((entry) => entry.message.includes("Data Sender role"))).toBe(false);
  expect(
    retries.every((entry) => !/error="AggregateError"\s|lastError="AggregateError"/.test(entry.message)),
  ).toBe(true);
  // One attempt at a time: far fewer token requests held than events waiting.
  expect(delivery.identity.tokensHeld()).toBeLessThan(hungIds.length);

  delivery.identity.hang(false);
  await waitUntil(() => hung.ids().length >= hungIds.length, 120_000, "the identity's events after the hang");
  expect([...new Set(hung.ids())].sort()).toEqual([...hungIds].sort());
});
