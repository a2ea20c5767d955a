import type { RunningServiceBus } from "../../dev/stand-ins/service-bus";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  ingest,
  type Subscriber,
  twinsInstance,
  waitUntil,
} from "../support/delivery-kit";
import type { TestHost } from "../support/test-host";

// CONTRACT §7 in delivery, over the wire: which endpoint gets which event once routes name it.
// ENDPOINT_CACHE_SECONDS is an hour here: a route changed on this host must reach delivery at once
// all the same (the cache forgets the instance), not after the cache period.
let serviceBus: RunningServiceBus;
let host: TestHost;
let stack: DeliveryStack;
beforeAll(async () => {
  stack = await DeliveryStack.start({ ENDPOINT_CACHE_SECONDS: "3600" });
  ({ serviceBus, host } = stack);
});
afterAll(() => stack.stop());

async function endpointOn(instance: string, name: string): Promise<Subscriber> {
  const topic = `${instance.split("/").pop()}-${name}`;
  const connection = serviceBus.connectionString(topic);
  await createEndpoint(host, instance, name, { primary: connection, secondary: connection });
  return stack.subscribe(topic);
}

async function putRoute(instance: string, name: string, endpointName: string, filter: string) {
  const response = await host.request(`${instance}/eventRoutes/${name}`, {
    method: "PUT",
    body: JSON.stringify({ endpointName, filter }),
  });
  expect([200, 201]).toContain(response.status);
}

/** The counters the invocations logged since `from`, summed. */
function counted(name: string, from: number): number {
  return host.logs
    .slice(from)
    .map((entry) => new RegExp(`^twin events: .*\\b${name}=(\\d+)`).exec(entry.message)?.[1])
    .reduce((sum, count) => sum + Number(count ?? 0), 0);
}

const EVENTS = [
  { ...cloudEvent("cool", { temperature: 20, level: "low" }), type: "Twin.Update" },
  { ...cloudEvent("hot", { temperature: 35, level: "low" }), type: "Twin.Update" },
  { ...cloudEvent("alarm", { temperature: 10, level: "high" }), type: "Twin.Update" },
  { ...cloudEvent("created", { temperature: 50 }), type: "Twin.Create" },
];

it("sends each endpoint what any of its routes lets through, and every event to an endpoint no route names", async () => {
  const instance = twinsInstance("routed");
  const everything = await endpointOn(instance, "everything");
  const hot = await endpointOn(instance, "hot");
  const either = await endpointOn(instance, "either");
  await putRoute(instance, "hot-only", "hot", "type = 'Twin.Update' AND $body.temperature > 30");
  await putRoute(instance, "high-level", "either", "$body.level = 'high'");
  await putRoute(instance, "creations", "either", "STARTS_WITH(type, 'Twin.Create')");
  const from = host.logs.length;
  await ingest(host, instance, EVENTS);
  await waitUntil(
    () => everything.received.length === 4 && hot.received.length === 1 && either.received.length === 2,
    30_000,
    "the routed events",
  );
  expect(everything.ids().sort()).toEqual(["alarm", "cool", "created", "hot"]);
  expect(hot.ids()).toEqual(["hot"]);
  expect(either.ids().sort()).toEqual(["alarm", "created"]);
  // An endpoint no route names takes every event, so none is unrouted.
  expect(counted("unrouted", from)).toBe(0);
});

it("counts what no route lets through, never dead-letters it, and applies a route changed on this host at once", async () => {
  const instance = twinsInstance("filtered");
  const hot = await endpointOn(instance, "hot");
  await putRoute(instance, "hot-only", "hot", "$body.temperature > 30");
  let from = host.logs.length;
  await ingest(host, instance, EVENTS);
  await waitUntil(() => hot.received.length === 2, 30_000, "the hot events");
  await waitUntil(() => counted("unrouted", from) === 2, 30_000, "two unrouted events counted");
  expect(counted("deadLettered", from) + counted("poisoned", from)).toBe(0);
  expect(hot.ids().sort()).toEqual(["created", "hot"]);
  // The cache holds the instance for an hour; this host's change reaches delivery all the same.
  await putRoute(instance, "hot-only", "hot", "$body.temperature < 30");
  from = host.logs.length;
  await ingest(
    host,
    instance,
    EVENTS.map((event) => ({ ...event, id: `${event.id}-2` })),
  );
  await waitUntil(() => hot.received.length === 4, 30_000, "the cool events");
  expect(hot.ids().slice(2).sort()).toEqual(["alarm-2", "cool-2"]);
  await waitUntil(() => counted("unrouted", from) === 2, 30_000, "two unrouted events counted");
  // Deleting the route makes the endpoint take every event again.
  expect((await host.request(`${instance}/eventRoutes/hot-only`, { method: "DELETE" })).status).toBe(200);
  await ingest(
    host,
    instance,
    EVENTS.map((event) => ({ ...event, id: `${event.id}-3` })),
  );
  await waitUntil(() => hot.received.length === 8, 30_000, "every event");
});

it("evaluates filters on what the events hold: missing fields, arrays, Unicode and types that differ", async () => {
  const instance = twinsInstance("shapes");
  const sink = await endpointOn(instance, "sink");
  await putRoute(
    instance,
    "shapes",
    "sink",
    "$body.readings[1] >= 2 OR $body['名前'] = 'ü' OR $body.flag = true OR CONTAINS(subject, 'it\\'s')",
  );
  const events = [
    cloudEvent("array-hit", { readings: [1, 2] }),
    cloudEvent("array-short", { readings: [5] }),
    cloudEvent("string-not-number", { readings: [1, "3"] }),
    cloudEvent("unicode", { 名前: "ü" }),
    cloudEvent("flag-string", { flag: "true" }),
    cloudEvent("flag", { flag: true }),
    { ...cloudEvent("quoted", {}), subject: "it's here" },
    cloudEvent("no-data", null),
  ];
  await ingest(host, instance, events);
  await waitUntil(() => sink.received.length >= 4, 30_000, "the matching events");
  // Give a wrongly sent event the time to arrive too.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(sink.ids().sort()).toEqual(["array-hit", "flag", "quoted", "unicode"]);
});
