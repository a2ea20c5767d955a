import { randomUUID } from "node:crypto";
import { ROUTE_LEDGER_ID } from "../../src/endpoints/instance-partition";
import { CONTAINERS } from "../../src/store/containers";
import { startTestHost, type TestHost } from "../support/test-host";

// CONTRACT §7 under races, on two hosts sharing one database as a scaled-out app does: the route
// quota is exact, no route is ever stored for an endpoint that is not, and what is stored agrees
// with the routes' ledger (its members and each one's endpoint). Each round's requests go out at
// once, alternating between the hosts; the invariants are then checked against what is stored.
const LIMIT = 3;
const ROUNDS = 10;

let hosts: [TestHost, TestHost];
beforeAll(async () => {
  const database = `test-${randomUUID().slice(0, 8)}`;
  const settings = { ROUTES_PER_INSTANCE_MAX: String(LIMIT), ENDPOINTS_PER_INSTANCE_MAX: "10" };
  const first = await startTestHost(settings, database);
  hosts = [first, await startTestHost(settings, database, { createContainers: false })];
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.stop()));
});

const connection = (key: string) =>
  `Endpoint=sb://race-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=race`;
const endpointBody = JSON.stringify({
  queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
  queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
});

function instance(name: string) {
  const path = `/subscriptions/00000000-0000-0000-0000-0000000000bb/resourceGroups/race-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${name}`;
  /** Sends on host `index % 2`: successive requests alternate between the hosts. */
  const send = (index: number, method: string, tail: string, body?: unknown) =>
    hosts[index % 2]?.request(`${path}/${tail}`, {
      method,
      ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
    }) as Promise<Response>;
  return {
    send,
    putEndpoint: (index: number, name: string) => send(index, "PUT", `endpoints/${name}`, endpointBody),
    putRoute: (index: number, name: string, endpointName: string, filter = "true") =>
      send(index, "PUT", `eventRoutes/${name}`, { endpointName, filter }),
    /** What is stored of the instance: its endpoints' names, its routes (name → endpoint) and the routes' ledger. */
    async stored() {
      const container = hosts[0].services.database.container(CONTAINERS.queueEndpoints.id);
      const key = path.toLowerCase();
      const { resources } = await container.items
        .query<{
          id: string;
          name?: string;
          endpointName?: string;
          members?: string[];
          refersTo?: Record<string, string>;
        }>({
          query: "SELECT * FROM c WHERE c.instanceKey = @key",
          parameters: [{ name: "@key", value: key }],
        })
        .fetchAll();
      const routes = resources.filter((document) => document.id.startsWith("$eventRoute:"));
      const endpoints = resources.filter((document) => !document.id.startsWith("$"));
      const ledger = resources.find((document) => document.id === ROUTE_LEDGER_ID);
      return {
        endpoints: endpoints.map((document) => document.id).sort(),
        routes: Object.fromEntries(
          routes.map((document) => [document.id, document.endpointName?.toLowerCase()]),
        ),
        ledger,
      };
    },
  };
}

/** Milliseconds before [the delete, the route's write]: the delete first, both at once, the route first. */
const LEADS = [
  [0, 5],
  [0, 0],
  [5, 0],
];

/** `send` after `ms` milliseconds. */
function after(ms = 0, send: () => Promise<Response>): Promise<Response> {
  return new Promise((resolve) => setTimeout(resolve, ms)).then(send);
}

/** The invariants: at most LIMIT routes, each naming a stored endpoint, exactly as the ledger says. */
async function expectConsistent(target: ReturnType<typeof instance>) {
  const { endpoints, routes, ledger } = await target.stored();
  expect(Object.keys(routes).length).toBeLessThanOrEqual(LIMIT);
  for (const endpoint of Object.values(routes)) expect(endpoints).toContain(endpoint);
  expect(ledger?.members ?? []).toEqual(Object.keys(routes).sort());
  expect(ledger?.refersTo ?? {}).toEqual(routes);
  return { endpoints, routes };
}

it("creates exactly ROUTES_PER_INSTANCE_MAX routes when many new names race for the places on two hosts", async () => {
  const target = instance("rush");
  expect((await target.putEndpoint(0, "sink")).status).toBe(201);
  const responses = await Promise.all(
    Array.from({ length: LIMIT * 5 }, (_, index) => target.putRoute(index, `rush-${index}`, "sink")),
  );
  const statuses = responses.map((response) => response.status);
  expect(statuses.filter((status) => status === 201)).toHaveLength(LIMIT);
  expect(statuses.filter((status) => status === 409)).toHaveLength(LIMIT * 4);
  expect(Object.keys((await expectConsistent(target)).routes)).toHaveLength(LIMIT);
});

it("keeps the quota and the ledger exact while PUT and DELETE of one route race with newcomers, round after round", async () => {
  const target = instance("churn");
  for (const name of ["sink-a", "sink-b"]) expect((await target.putEndpoint(0, name)).status).toBe(201);
  const held = Array.from({ length: LIMIT }, (_, index) => `held-${index}`);
  for (const name of held) expect((await target.putRoute(0, name, "sink-a")).status).toBe(201);
  const statuses = new Set<number>();
  for (let round = 1; round <= ROUNDS; round++) {
    const contested = held[round % LIMIT] as string;
    const responses = await Promise.all([
      target.send(0, "DELETE", `eventRoutes/${contested}`),
      target.putRoute(1, contested, "sink-b", `$body.round = ${round}`),
      target.send(2, "DELETE", `eventRoutes/${contested}`),
      target.putRoute(3, contested, "sink-a"),
      target.putRoute(4, `newcomer-${round}`, round % 2 ? "sink-a" : "sink-b"),
      target.putRoute(5, contested, "sink-b"),
    ]);
    for (const response of responses) statuses.add(response.status);
    const { routes } = await expectConsistent(target);
    for (const id of Object.keys(routes).filter((id) => id.includes("newcomer-")))
      expect((await target.send(round, "DELETE", `eventRoutes/${id.split(":")[1]}`)).status).toBe(200);
    for (const name of held)
      expect([200, 201]).toContain((await target.putRoute(round, name, "sink-a")).status);
    await expectConsistent(target);
  }
  expect([...statuses].sort()).toEqual(expect.arrayContaining([200]));
  expect([...statuses].every((status) => [200, 201, 204, 409].includes(status))).toBe(true);
});

it("never leaves a route naming a deleted endpoint while a route's create races the endpoint's delete", async () => {
  const target = instance("orphans");
  const outcomes = new Set<string>();
  for (let round = 1; round <= ROUNDS * 2; round++) {
    expect([200, 201]).toContain((await target.putEndpoint(round, "doomed")).status);
    // Which goes first varies by round (and by a millisecond or two), so both orders are run.
    const [deleted, created] = await Promise.all([
      after(LEADS[round % 3]?.[0], () => target.send(round, "DELETE", "endpoints/doomed")),
      after(LEADS[round % 3]?.[1], () => target.putRoute(round + 1, `late-${round}`, "doomed")),
    ]);
    outcomes.add(`${deleted.status}/${created.status}`);
    // Exactly one of the two wins: the delete (the route is refused) or the route (the delete is).
    expect([
      [200, 400],
      [409, 201],
    ]).toContainEqual([deleted.status, created.status]);
    const { routes } = await expectConsistent(target);
    for (const id of Object.keys(routes))
      expect((await target.send(round, "DELETE", `eventRoutes/${id.split(":")[1]}`)).status).toBe(200);
  }
  // Both orders were run: each side won at least once.
  expect([...outcomes].sort()).toEqual(["200/400", "409/201"]);
});

it("never lets a route moved to another endpoint outlive that endpoint's racing delete", async () => {
  const target = instance("moves");
  expect((await target.putEndpoint(0, "stay")).status).toBe(201);
  expect((await target.putRoute(0, "mover", "stay")).status).toBe(201);
  for (let round = 1; round <= ROUNDS * 2; round++) {
    expect([200, 201]).toContain((await target.putEndpoint(round, "target")).status);
    const [deleted, moved] = await Promise.all([
      after(LEADS[round % 3]?.[0], () => target.send(round, "DELETE", "endpoints/target")),
      after(LEADS[round % 3]?.[1], () => target.putRoute(round + 1, "mover", "target")),
    ]);
    expect([
      [200, 400],
      [409, 200],
    ]).toContainEqual([deleted.status, moved.status]);
    await expectConsistent(target);
    expect((await target.putRoute(round, "mover", "stay")).status).toBe(200);
  }
});
