import { randomUUID } from "node:crypto";
import { type RunningServiceBus, startServiceBusStandIn } from "../../dev/stand-ins/service-bus";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  deadLetterUrl,
  ingest,
  listBlobs,
  Subscriber,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import { startTestHost, type TestHost } from "../support/test-host";

// Two hosts against one Cosmos database, one storage account and one broker, as a scaled-out
// Functions app runs: quotas stay exact across them, and they share the event queue without
// losing an event (each one is delivered, or dead-lettered, at least once).
const PROFILE_LIMIT = 5;
let serviceBus: RunningServiceBus;
let hosts: [TestHost, TestHost];

beforeAll(async () => {
  serviceBus = await startServiceBusStandIn({ port: 0 });
  const settings = {
    AUTH_PROFILE_MAX_COUNT: String(PROFILE_LIMIT),
    DELIVERY_MAX_ATTEMPTS: "2",
    DELIVERY_BACKOFF_BASE_SECONDS: "1",
    DELIVERY_BACKOFF_CAP_SECONDS: "1",
    DELIVERY_SEND_TIMEOUT_MS: "2000",
    ENDPOINT_CACHE_SECONDS: "0",
  };
  const database = `scale-${randomUUID().slice(0, 8)}`;
  const first = await startTestHost(settings, database, { queueTriggers: {} });
  const second = await startTestHost(settings, database, { queueTriggers: {}, createContainers: false });
  hosts = [first, second];
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
  await serviceBus.close();
});

const profileBody = JSON.stringify({ authenticationProfileContent: "{}" });

it("keeps the profile quota exact while both hosts race creates and deletes", async () => {
  for (let round = 0; round < 6; round++) {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => {
        const host = hosts[index % 2] as TestHost;
        const name = `shared-${(index + round) % 8}`;
        const method = index % 3 === 2 ? "DELETE" : "PUT";
        return host.request(`/authenticationProfiles/${name}`, {
          method,
          ...(method === "PUT" && { body: profileBody }),
        });
      }),
    );
    expect(responses.filter((response) => response.status >= 500)).toEqual([]);
    const stored = (
      await hosts[0].services.profiles.list({}, { pageSize: 100, continuation: undefined })
    ).items
      .map((profile) => profile.id.toLowerCase())
      .sort();
    expect(stored.length).toBeLessThanOrEqual(PROFILE_LIMIT);
    expect(await hosts[1].services.profiles.ledger.members(hosts[1].services.profiles.quota)).toEqual(stored);
  }
});

it("delivers or dead-letters every event when both hosts take events from the one queue", async () => {
  const instance = twinsInstance(`scaled-${randomUUID().slice(0, 6)}`);
  const topic = `scaled-${randomUUID().slice(0, 6)}`;
  const subscriber = new Subscriber(serviceBus, topic);
  const deadLetter = await deadLetterUrl();
  try {
    const connection = serviceBus.connectionString(topic);
    await createEndpoint(hosts[0], instance, "working", { primary: connection, secondary: connection });
    const unreachable = unreachableConnectionString(await closedPort(), topic);
    await createEndpoint(hosts[1], instance, "broken", {
      primary: unreachable,
      secondary: unreachable,
      deadLetter,
    });
    const ids = Array.from({ length: 40 }, (_, index) => `scaled-${index}`);
    await Promise.all([
      ingest(
        hosts[0],
        instance,
        ids.slice(0, 20).map((id) => cloudEvent(id)),
      ),
      ingest(
        hosts[1],
        instance,
        ids.slice(20).map((id) => cloudEvent(id)),
      ),
    ]);
    await waitUntil(() => ids.every((id) => subscriber.ids().includes(id)), 60_000, "every event delivered");
    await waitUntil(
      async () => {
        const deadLettered = new Set(
          (await listBlobs(deadLetter)).map((blob) => (blob.body as { id: string }).id),
        );
        return ids.every((id) => deadLettered.has(id));
      },
      90_000,
      "every event dead-lettered for the broken endpoint",
    );
  } finally {
    await subscriber.close();
  }
});
