import type { IncomingMessage } from "node:http";
import { principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { ROUTE_LEDGER_ID } from "../../src/endpoints/instance-partition";
import { CONTAINERS } from "../../src/store/containers";
import { expectArmError } from "../support/arm";
import { asPrincipal, assignRole } from "../support/entra-host";
import { type RacingHosts, startRacingHosts } from "../support/holding-cosmos";

// Issue 40 on two hosts sharing one database, as a scaled-out app runs: route `mute` silences
// endpoint `epx` (filter false); "mover" may write and delete `mute` and read the endpoints `open`
// and `open2`, never `epx`. Moving or deleting a route needs read on the endpoint it named, and
// that must be the endpoint it names when the write is made: a move of `mute` to `epx` by another
// request, on the other host, between the mover's reads and its write, must not let the mover take
// `mute` away from `epx` (which would then get every event). The Cosmos DB server is this file's
// own, so that one request's batch can be held while another request runs (holdWhere).
const INSTANCE =
  "/subscriptions/5d1c7a52-0000-4000-8000-00000000a40a/resourceGroups/Races/providers/Microsoft.DigitalTwins/digitalTwinsInstances/muted";
const MUTE = `${INSTANCE}/eventRoutes/mute`;
const EPX = `${INSTANCE}/endpoints/epx`;
const READ_ENDPOINT = "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read";
const ROUNDS = 24;

const connection = (key: string) =>
  `Endpoint=sb://race-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=race`;
const ENDPOINT_BODY = JSON.stringify({
  queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
  queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
});

/** A transactional batch in the instance's partition of the endpoints' container (a route's write). */
const instanceBatch = (request: IncomingMessage) =>
  request.method === "POST" &&
  request.url?.endsWith(`/colls/${CONTAINERS.queueEndpoints.id}/docs`) === true &&
  String(request.headers["x-ms-cosmos-is-batch-request"]).toLowerCase() === "true" &&
  String(request.headers["x-ms-documentdb-partitionkey"]).includes(INSTANCE.toLowerCase());

let racing: RacingHosts;

beforeAll(async () => {
  racing = await startRacingHosts("route-access-races");
  for (const name of ["epx", "open", "open2"])
    expect(
      (await admin(0)(`${INSTANCE}/endpoints/${name}`, { method: "PUT", body: ENDPOINT_BODY })).status,
    ).toBe(201);
  await assignRole(racing.hosts[0], racing.issuer, MUTE, "mover", "Contributor");
  for (const name of ["open", "open2"])
    await assignRole(racing.hosts[0], racing.issuer, `${INSTANCE}/endpoints/${name}`, "mover", "Reader");
});
afterAll(() => racing.stop());

const on = (index: number) => racing.on(index);
const admin = (index: number) => racing.admin(index);
const mover = (index: number) => asPrincipal(on(index), racing.issuer, { name: "mover" });
const routeBody = (endpointName: string, filter: string) => JSON.stringify({ endpointName, filter });

/** ADMIN points `mute` at `endpointName` (200, or 201 when it was gone). */
async function adminPoints(index: number, endpointName: string): Promise<number> {
  const response = await admin(index)(MUTE, { method: "PUT", body: routeBody(endpointName, "false") });
  expect([200, 201]).toContain(response.status);
  return response.status;
}

const moverMoves = (index: number) => mover(index)(MUTE, { method: "PUT", body: routeBody("open2", "true") });
const moverDeletes = (index: number) => mover(index)(MUTE, { method: "DELETE" });

async function expectRefusedOverEpx(response: Response) {
  const error = await expectArmError(response, 403, "AuthorizationFailed");
  const oid = principalObjectId("mover");
  expect(error.message).toBe(
    `The client '${oid}' with object id '${oid}' does not have authorization to perform action '${READ_ENDPOINT}' over scope '${EPX}' or the scope is invalid.`,
  );
}

/**
 * What is stored of the instance, read from the database: its routes (name key → endpoint and
 * filter), and the routes' ledger, which must agree with them (members, and each one's endpoint).
 */
async function stored() {
  const container = racing.hosts[0].services.database.container(CONTAINERS.queueEndpoints.id);
  const { resources } = await container.items
    .query<{ id: string; endpointName?: string; filter?: string; members?: string[]; refersTo?: object }>({
      query: "SELECT * FROM c WHERE c.instanceKey = @key",
      parameters: [{ name: "@key", value: INSTANCE.toLowerCase() }],
    })
    .fetchAll();
  const routes = resources.filter((document) => document.id.startsWith("$eventRoute:"));
  const ledger = resources.find((document) => document.id === ROUTE_LEDGER_ID);
  expect(ledger?.members ?? []).toEqual(routes.map((route) => route.id).sort());
  expect(ledger?.refersTo ?? {}).toEqual(
    Object.fromEntries(routes.map((route) => [route.id, route.endpointName?.toLowerCase()])),
  );
  return Object.fromEntries(
    routes.map((route) => [route.id, { endpointName: route.endpointName, filter: route.filter }]),
  );
}

/** The invariant: `mute` names `epx` as ADMIN left it, and nothing else was stored. */
async function expectEpxMuted() {
  expect(await stored()).toEqual({ "$eventRoute:mute": { endpointName: "epx", filter: "false" } });
}

describe("a route moved to `epx` on the other host while the mover's write is under way", () => {
  it.each([
    ["a move", moverMoves],
    ["a delete", moverDeletes],
  ])("refuses %s by the mover, judged on where the route is when it is written", async (_, write) => {
    await adminPoints(0, "open");
    // The mover's write reads `mute` where it may change it (`open`), then is held at its batch...
    const held = racing.cosmos.holdWhere(instanceBatch);
    const writing = write(0);
    await held.reached;
    // ...while ADMIN moves `mute` to `epx` through the other host.
    expect(await adminPoints(1, "epx")).toBe(200);
    held.release();
    await expectRefusedOverEpx(await writing);
    await expectEpxMuted();
  });

  it("lets the write through when the route went to an endpoint the mover may read: judged again, not refused for racing", async () => {
    await adminPoints(0, "open");
    const held = racing.cosmos.holdWhere(instanceBatch);
    const deleting = moverDeletes(0);
    await held.reached;
    expect(await adminPoints(1, "open2")).toBe(200);
    held.release();
    expect((await deleting).status).toBe(200);
    expect(await stored()).toEqual({});
  });
});

/** `send` after `ms` milliseconds. */
function after(ms: number, send: () => Promise<Response>): Promise<Response> {
  return new Promise((resolve) => setTimeout(resolve, ms)).then(send);
}

/** Milliseconds before [the mover's move, the mover's delete, ADMIN's move to `epx`]: each order in turn. */
const LEADS = [
  [0, 20, 40],
  [40, 20, 0],
  [0, 0, 0],
  [20, 40, 0],
  [40, 0, 20],
  [0, 40, 20],
];

it("never lets the mover take `mute` from `epx` while moves and deletes race on two hosts, round after round", async () => {
  const outcomes = new Set<string>();
  for (let round = 0; round < ROUNDS; round++) {
    await adminPoints(round, "open");
    const [lead, other, last] = LEADS[round % LEADS.length] as number[];
    const [moved, deleted, muted] = await Promise.all([
      after(lead ?? 0, () => moverMoves(round)),
      after(other ?? 0, () => moverDeletes(round + 1)),
      after(last ?? 0, () => admin(round + 1)(MUTE, { method: "PUT", body: routeBody("epx", "false") })),
    ]);
    // ADMIN's move always lands (201 after the mover's delete); the mover's writes land before it, or are refused.
    expect([200, 201]).toContain(muted.status);
    expect([200, 201, 403]).toContain(moved.status);
    expect([200, 204, 403]).toContain(deleted.status);
    for (const response of [moved, deleted])
      if (response.status === 403) await expectRefusedOverEpx(response);
    outcomes.add(`move ${moved.status}`).add(`delete ${deleted.status}`);
    await expectEpxMuted();
  }
  // Both orders were run: the mover's writes went first (and passed) in some rounds, after ADMIN's in others.
  expect([...outcomes]).toEqual(expect.arrayContaining(["move 200", "move 403", "delete 200", "delete 403"]));
});
