import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { principalObjectId } from "../../dev/stand-ins/openid-issuer";
import {
  type AssignmentTuple,
  CLAIM_KIND,
  CLAIM_LEASE_MS,
  type ClaimDocument,
  claimId,
} from "../../src/role-assignments/assignment-claims";
import type { RoleAssignment } from "../../src/role-assignments/role-assignment-schema";
import { CONTAINERS } from "../../src/store/containers";
import { DocumentStore, type Stored } from "../../src/store/document-store";
import { expectArmError } from "../support/arm";
import { asPrincipal } from "../support/entra-host";
import { type RacingHosts, startRacingHosts } from "../support/holding-cosmos";

// CONTRACT §6: one (principal, role, scope) is stored once, under races across hosts too. Two hosts
// on one database, as a scaled-out app runs, with no grants cache (AUTH_CACHE_SECONDS=0); the
// database is on a Cosmos DB server of this file's own, which can hold a request (see holdWhere) so
// that one PUT's steps can be run between another's.
const GROUP = "/subscriptions/5d1c7a52-0000-4000-8000-00000000race/resourceGroups/Races";
const ASSIGNMENTS = `${GROUP}/providers/Microsoft.Authorization/roleAssignments`;
const INSTANCE_ENDPOINTS = `${GROUP}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant/endpoints`;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RACERS = 10;
const TRIALS = 10;

/** The create of the assignment document `name` (its partition key is its name). */
const createOf = (name: string) => (request: IncomingMessage) =>
  request.method === "POST" &&
  request.url?.endsWith(`/colls/${CONTAINERS.roleAssignments.id}/docs`) === true &&
  request.headers["x-ms-documentdb-isquery"] === undefined &&
  String(request.headers["x-ms-documentdb-partitionkey"]).includes(name);

/** The point read of the assignment document `name`. */
const readOf = (name: string) => (request: IncomingMessage) =>
  request.method === "GET" &&
  request.url?.endsWith(`/colls/${CONTAINERS.roleAssignments.id}/docs/${name}`) === true;

/** "held" if the hold is reached before the response comes, else the response's status. */
const firstOf = (reached: Promise<void>, response: Promise<Response>) =>
  Promise.race([reached.then(() => "held" as const), response.then((answered) => answered.status)]);

/** The delete of a claim (a DELETE releasing the tuple). */
const claimDelete = (request: IncomingMessage) =>
  request.method === "DELETE" && request.url?.includes("/docs/claim-") === true;

let racing: RacingHosts;

beforeAll(async () => {
  racing = await startRacingHosts("assign-races");
});
afterAll(() => racing.stop());

const admin = (index: number) => racing.admin(index);
const body = (principal: string, role = "Reader") =>
  JSON.stringify({ principalId: principalObjectId(principal), roleDefinitionName: role });
const put = (index: number, name: string, principal: string) =>
  admin(index)(`${ASSIGNMENTS}/${name}`, { method: "PUT", body: body(principal) });
const remove = (index: number, name: string) => admin(index)(`${ASSIGNMENTS}/${name}`, { method: "DELETE" });

const jitter = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 20));

/** The names of the principal's assignments in the store, whatever their scope or role. */
async function storedFor(principal: string): Promise<string[]> {
  const names = await racing.hosts[0].services.roleAssignments.documents.queryAll<string>({
    query: "SELECT VALUE c.name FROM c WHERE c.principalId = @principal",
    parameters: [{ name: "@principal", value: principalObjectId(principal) }],
  });
  return names.sort();
}

/** The principal's assignments as the list route at the scope shows them (to ADMIN), from host `index`. */
async function listedFor(index: number, principal: string): Promise<string[]> {
  const response = await admin(index)(ASSIGNMENTS);
  expect(response.status).toBe(200);
  const { value } = (await response.json()) as { value: RoleAssignment[] };
  // Claims are no assignments: never listed.
  expect(value.filter((assignment) => !GUID.test(assignment.name))).toEqual([]);
  return value
    .filter((assignment) => assignment.principalId === principalObjectId(principal))
    .map((assignment) => assignment.name)
    .sort();
}

/** The claims in the store, read and written as a PUT or DELETE of any host would. */
const claimsStore = () =>
  new DocumentStore<ClaimDocument>(
    racing.hosts[0].services.database.container(CONTAINERS.roleAssignments.id),
    (claim) => claim.id,
  );

const claimsNaming = (name: string) =>
  claimsStore().queryAll<Stored<ClaimDocument>>({
    query: "SELECT * FROM c WHERE c.assignment = @name",
    parameters: [{ name: "@name", value: name }],
  });

/** Assigns the principal Reader under a new name (201); its name, its tuple, and its claim's id. */
async function assigned(principal: string): Promise<{ name: string; tuple: AssignmentTuple; claim: string }> {
  const name = randomUUID();
  expect((await put(0, name, principal)).status).toBe(201);
  const document = await racing.hosts[1].services.roleAssignments.documents.read(name, name);
  if (!document) throw new Error("the assignment was not stored");
  const tuple = {
    principalId: document.principalId,
    roleDefinition: document.roleDefinition,
    scopeKeyPath: document.scopeKeyPath,
  };
  const claim = await claimsStore().read(claimId(tuple), claimId(tuple));
  expect(claim).toMatchObject({ claimKind: CLAIM_KIND, assignment: name, confirmed: true });
  return { name, tuple, claim: claimId(tuple) };
}

/** What the principal gets reading under the scope, on each host. */
async function accessOf(principal: string): Promise<number[]> {
  return Promise.all(
    racing.hosts.map(
      async (host) =>
        (await asPrincipal(host, racing.issuer, { name: principal })(INSTANCE_ENDPOINTS)).status,
    ),
  );
}

it("stores one of ten concurrent PUTs of one principal, role and scope under ten names, over two hosts; deleting it revokes at once", async () => {
  for (let trial = 0; trial < TRIALS; trial++) {
    const principal = `racer-${trial}-${randomUUID().slice(0, 8)}`;
    const names = Array.from({ length: RACERS }, () => randomUUID());
    const responses = await Promise.all(names.map((name, index) => put(index, name, principal)));
    const statuses = responses.map((response) => response.status);
    const created = names.filter((_, index) => statuses[index] === 201);
    expect({ trial, created: created.length }).toEqual({ trial, created: 1 });
    const winner = created[0] as string;
    for (const [index, response] of responses.entries()) {
      if (response.status === 201) continue;
      const error = await expectArmError(response, 409, "RoleAssignmentExists");
      // The loser is told which assignment already gives the role.
      expect({ index, message: error.message }).toEqual({ index, message: expect.stringContaining(winner) });
    }
    expect(await storedFor(principal)).toEqual([winner]);
    expect(await listedFor(trial, principal)).toEqual([winner]);
    expect(await accessOf(principal)).toEqual([200, 200]);

    expect((await remove(trial + 1, winner)).status).toBe(200);
    expect(await storedFor(principal)).toEqual([]);
    expect(await accessOf(principal)).toEqual([403, 403]);
  }
});

it("keeps at most one while PUTs and DELETEs of one principal, role and scope race over two hosts, and never blocks it", async () => {
  const principal = `churn-${randomUUID().slice(0, 8)}`;
  const [a, b] = [randomUUID(), randomUUID()];
  for (let round = 0; round < 20; round++) {
    const c = randomUUID();
    // Each request a few milliseconds apart at random, so that every step of one meets every step of another.
    const responses = await Promise.all(
      [
        () => put(0, a, principal),
        () => put(1, b, principal),
        () => remove(1, a),
        () => put(0, c, principal),
        () => remove(0, b),
        () => put(1, a, principal),
        () => remove(round, c),
      ].map((send) => jitter().then(send)),
    );
    const statuses = responses.map((response) => response.status);
    expect({
      round,
      unexpected: statuses.filter((status) => ![200, 201, 204, 409].includes(status)),
    }).toEqual({
      round,
      unexpected: [],
    });
    for (const response of responses) {
      if (response.status === 409) await expectArmError(response, 409, "RoleAssignmentExists");
    }
    const stored = await storedFor(principal);
    expect({ round, stored }).toEqual({ round, stored: stored.slice(0, 1) });
    expect(await accessOf(principal)).toEqual(stored.length === 1 ? [200, 200] : [403, 403]);
    // Whatever is left, the tuple is not blocked: a new name gets it, or is told who has it.
    const fresh = randomUUID();
    const next = await put(round + 1, fresh, principal);
    if (stored.length === 0) {
      expect({ round, status: next.status }).toEqual({ round, status: 201 });
      expect((await remove(round, fresh)).status).toBe(200);
    } else {
      const error = await expectArmError(next, 409, "RoleAssignmentExists");
      expect(error.message).toContain(stored[0]);
    }
  }
});

describe("what a PUT or DELETE that stopped halfway leaves", () => {
  const deleteDocument = async (name: string) =>
    expect(await racing.hosts[0].services.roleAssignments.documents.delete(name, name, undefined)).toBe(
      "deleted",
    );

  /** Writes the tuple's claim naming `assignment`, as a PUT or a DELETE that stopped halfway may leave it. */
  async function leaveClaim(tuple: AssignmentTuple, assignment: string, claimedAt: Date, confirmed = false) {
    const id = claimId(tuple);
    const stored = await claimsStore().read(id, id);
    const claim: ClaimDocument = {
      id,
      claimKind: CLAIM_KIND,
      assignment,
      confirmed,
      claimedAt: claimedAt.toISOString(),
    };
    await (stored ? claimsStore().replace(claim, undefined) : claimsStore().create(claim));
  }

  it("an assignment document deleted without its claim does not hold the tuple", async () => {
    const principal = `gone-${randomUUID().slice(0, 8)}`;
    const { name } = await assigned(principal);
    await deleteDocument(name);
    const next = randomUUID();
    expect((await put(1, next, principal)).status).toBe(201);
    expect(await storedFor(principal)).toEqual([next]);
  });

  it("a claim past its lease, of an assignment never written, does not hold the tuple; a fresh one is waited for", async () => {
    const principal = `stalled-${randomUUID().slice(0, 8)}`;
    const { name, tuple } = await assigned(principal);
    await deleteDocument(name);
    const ghost = randomUUID();
    // A PUT of `ghost` claimed the tuple just now, and has not written its assignment (yet): another
    // name is told to retry, never given a second assignment; `ghost` itself (its retry) goes on.
    await leaveClaim(tuple, ghost, new Date());
    const waiting = await put(1, randomUUID(), principal);
    await expectArmError(waiting, 503, "ServiceUnavailable");
    expect(waiting.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await put(0, ghost, principal)).status).toBe(201);
    expect(await storedFor(principal)).toEqual([ghost]);

    // The same claim from a PUT that stopped before the lease ran out, long ago: taken over.
    await deleteDocument(ghost);
    await leaveClaim(tuple, randomUUID(), new Date(Date.now() - CLAIM_LEASE_MS - 1000));
    const next = randomUUID();
    expect((await put(1, next, principal)).status).toBe(201);
    expect(await storedFor(principal)).toEqual([next]);
  });

  it("a claim naming an assignment now of another principal does not hold the tuple", async () => {
    const principal = `reused-${randomUUID().slice(0, 8)}`;
    const { name, tuple } = await assigned(principal);
    // The name was deleted, claim and all, and made again for someone else; this claim was left.
    expect((await remove(0, name)).status).toBe(200);
    expect((await put(1, name, `other-${principal}`)).status).toBe(201);
    await leaveClaim(tuple, name, new Date(), true);
    const next = randomUUID();
    expect((await put(0, next, principal)).status).toBe(201);
    expect(await storedFor(principal)).toEqual([next]);
  });

  it("an assignment stored without a claim (before claims existed) still refuses a second", async () => {
    const principal = `legacy-${randomUUID().slice(0, 8)}`;
    const { name, claim } = await assigned(principal);
    expect(await claimsStore().delete(claim, claim, undefined)).toBe("deleted");
    const second = await put(1, randomUUID(), principal);
    const error = await expectArmError(second, 409, "RoleAssignmentExists");
    expect(error.message).toContain(name);
    expect(await storedFor(principal)).toEqual([name]);
    // The claim now names it, so deleting it frees the tuple.
    expect((await remove(0, name)).status).toBe(200);
    expect((await put(1, randomUUID(), principal)).status).toBe(201);
  });
});

it("a re-PUT of a stored assignment stays 200, and another principal under its name 409", async () => {
  const principal = `again-${randomUUID().slice(0, 8)}`;
  const { name } = await assigned(principal);
  const again = await Promise.all([put(0, name, principal), put(1, name, principal)]);
  expect(again.map((response) => response.status)).toEqual([200, 200]);
  await expectArmError(await put(1, name, `other-${principal}`), 409, "RoleAssignmentUpdateNotPermitted");
  expect(await storedFor(principal)).toEqual([name]);
});

describe("one PUT's steps run between another's (requests held at the store)", () => {
  it("a fresh claim is waited for: the PUT that made it gets 201, the other 409 naming it", async () => {
    const principal = `patient-${randomUUID().slice(0, 8)}`;
    const [first, second] = [randomUUID(), randomUUID()];
    const held = racing.cosmos.holdWhere(createOf(first));
    const firstPut = put(0, first, principal);
    await held.reached;
    // The first PUT has claimed the tuple and is writing its assignment. The second reads the claim,
    // then the assignment it names (not there yet), and must wait: it looks again from the start,
    // the read of its own name, and is held there until the first has finished.
    const holderRead = racing.cosmos.holdWhere(readOf(first));
    const secondPut = put(1, second, principal);
    expect(await firstOf(holderRead.reached, secondPut)).toBe("held");
    const lookingAgain = racing.cosmos.holdWhere(readOf(second));
    holderRead.release();
    expect(await firstOf(lookingAgain.reached, secondPut)).toBe("held");
    held.release();
    expect((await firstPut).status).toBe(201);
    lookingAgain.release();
    const error = await expectArmError(await secondPut, 409, "RoleAssignmentExists");
    expect(error.message).toContain(first);
    expect(await storedFor(principal)).toEqual([first]);
  });

  it("a PUT that stalled past its lease loses the tuple to the PUT that took its claim over, and withdraws", async () => {
    const principal = `stalled-${randomUUID().slice(0, 8)}`;
    const [slow, quick] = [randomUUID(), randomUUID()];
    const held = racing.cosmos.holdWhere(createOf(slow));
    const slowPut = put(0, slow, principal);
    await held.reached;
    // The slow PUT has claimed the tuple and not yet written its assignment; its lease runs out.
    const [claim] = await claimsNaming(slow);
    if (!claim) throw new Error("no claim");
    await claimsStore().replace(
      { ...claim, claimedAt: new Date(Date.now() - CLAIM_LEASE_MS - 1000).toISOString() },
      claim._etag,
    );
    expect((await put(1, quick, principal)).status).toBe(201);
    held.release();
    // Its assignment written, its confirm fails: it deletes what it wrote and names the holder.
    const error = await expectArmError(await slowPut, 409, "RoleAssignmentExists");
    expect(error.message).toContain(quick);
    expect(await storedFor(principal)).toEqual([quick]);
    expect(await accessOf(principal)).toEqual([200, 200]);
    expect((await remove(0, quick)).status).toBe(200);
    expect(await accessOf(principal)).toEqual([403, 403]);
  });

  it("a DELETE releasing the tuple after a re-PUT of the name confirmed it leaves the assignment claimed", async () => {
    const principal = `kept-${randomUUID().slice(0, 8)}`;
    const name = randomUUID();
    expect((await put(0, name, principal)).status).toBe(201);
    const held = racing.cosmos.holdWhere(claimDelete);
    const deleting = remove(0, name);
    await held.reached;
    // The assignment is deleted, its claim not yet: the same name again takes its own claim.
    expect((await put(1, name, principal)).status).toBe(201);
    held.release();
    expect((await deleting).status).toBe(200);
    expect(await storedFor(principal)).toEqual([name]);
    expect(await claimsNaming(name)).toEqual([expect.objectContaining({ confirmed: true })]);
    const error = await expectArmError(await put(1, randomUUID(), principal), 409, "RoleAssignmentExists");
    expect(error.message).toContain(name);
  });

  it("a re-PUT of the name whose claim a DELETE releases before the confirm withdraws, then claims afresh", async () => {
    const principal = `renewed-${randomUUID().slice(0, 8)}`;
    const name = randomUUID();
    expect((await put(0, name, principal)).status).toBe(201);
    const release = racing.cosmos.holdWhere(claimDelete);
    const deleting = remove(0, name);
    await release.reached;
    const create = racing.cosmos.holdWhere(createOf(name));
    const again = put(1, name, principal);
    await create.reached;
    // The re-PUT holds the claim's version it read; the DELETE now removes that version.
    release.release();
    expect((await deleting).status).toBe(200);
    create.release();
    expect((await again).status).toBe(201);
    expect(await storedFor(principal)).toEqual([name]);
    expect(await claimsNaming(name)).toEqual([expect.objectContaining({ confirmed: true })]);
    expect(await accessOf(principal)).toEqual([200, 200]);
  });
});
