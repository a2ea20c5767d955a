import { type InstancePath, instanceKey } from "../../src/endpoints/endpoint-path";
import { startTestHost, type TestHost } from "../support/test-host";

// Count quotas are exact under any interleaving: PUT and DELETE of one name racing, round after
// round, then the stored documents checked against the limit and against the quota ledger.
const INSTANCE_PATH: InstancePath = {
  subscriptionId: "00000000-0000-0000-0000-0000000000aa",
  resourceGroupName: "race-rg",
  instanceName: "race-twins",
};
const FIRST_PAGE = { pageSize: 1000, continuation: undefined };
const PROFILE_LIMIT = 4;
const ENDPOINT_LIMIT = 3;
const ROUNDS = 12;
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/race-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/race-twins";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({
    AUTH_PROFILE_MAX_COUNT: String(PROFILE_LIMIT),
    ENDPOINTS_PER_INSTANCE_MAX: String(ENDPOINT_LIMIT),
  });
});
afterAll(() => host.stop());

const connection = (key: string) =>
  `Endpoint=sb://race-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=race`;
const endpointBody = JSON.stringify({
  queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
  queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
});
const profileBody = (round: number) => JSON.stringify({ authenticationProfileContent: `{"round":${round}}` });

interface Kind {
  what: string;
  limit: number;
  path: (name: string) => string;
  body: (round: number) => string;
  stored: () => Promise<string[]>;
  ledger: () => Promise<string[] | undefined>;
}

const kinds: Kind[] = [
  {
    what: "authentication profiles",
    limit: PROFILE_LIMIT,
    path: (name) => `/authenticationProfiles/${name}`,
    body: profileBody,
    stored: async () =>
      (await host.services.profiles.list({}, FIRST_PAGE)).items.map((p) => p.id.toLowerCase()),
    ledger: () => host.services.profiles.ledger.members(host.services.profiles.quota),
  },
  {
    what: "endpoints of one instance",
    limit: ENDPOINT_LIMIT,
    path: (name) => `${INSTANCE}/endpoints/${name}`,
    body: () => endpointBody,
    stored: async () =>
      (await host.services.endpoints.list(INSTANCE_PATH, FIRST_PAGE)).items.map((e) => e.name.toLowerCase()),
    ledger: () =>
      host.services.endpoints.ledger.members(host.services.endpoints.quotaScope(instanceKey(INSTANCE_PATH))),
  },
];

describe.each(kinds)("$what", (kind) => {
  const send = (method: string, name: string, round: number) =>
    host.request(kind.path(name), method === "PUT" ? { method, body: kind.body(round) } : { method });

  async function expectStoredMatchesLedger(): Promise<string[]> {
    const stored = (await kind.stored()).sort();
    expect(stored.length).toBeLessThanOrEqual(kind.limit);
    expect(await kind.ledger()).toEqual(stored);
    return stored;
  }

  it("never exceeds the limit while PUT and DELETE of one name race, round after round", async () => {
    const names = Array.from({ length: kind.limit }, (_, index) => `held-${index}`);
    for (const name of names) expect((await send("PUT", name, 0)).status).toBe(201);
    const statuses = new Set<number>();
    for (let round = 1; round <= ROUNDS; round++) {
      const contested = names[round % names.length] ?? "held-0";
      const responses = await Promise.all([
        send("DELETE", contested, round),
        send("PUT", contested, round),
        send("DELETE", contested, round),
        send("PUT", contested, round),
        send("DELETE", contested, round),
        send("PUT", contested, round),
        // A newcomer that must only get in when the contested name is absent at that moment.
        send("PUT", `newcomer-${round}`, round),
      ]);
      for (const response of responses) statuses.add(response.status);
      const stored = await expectStoredMatchesLedger();
      // Put the set back to "full with the held names" for the next round.
      for (const name of stored.filter((name) => name.startsWith("newcomer-"))) {
        expect((await send("DELETE", name, round)).status).toBe(200);
      }
      for (const name of names) {
        const response = await send("PUT", name, round);
        expect([200, 201]).toContain(response.status);
      }
      await expectStoredMatchesLedger();
    }
    expect([...statuses].filter((status) => status >= 500)).toEqual([]);
    expect([...statuses].every((status) => [200, 201, 204, 409].includes(status))).toBe(true);
  });

  it("holds the limit when many new names race for the last places", async () => {
    const stored = await expectStoredMatchesLedger();
    for (const name of stored) await send("DELETE", name, 0);
    const responses = await Promise.all(
      Array.from({ length: kind.limit * 4 }, (_, index) => send("PUT", `rush-${index}`, 0)),
    );
    const created = responses.filter((response) => response.status === 201).length;
    expect(created).toBe(kind.limit);
    expect(responses.filter((response) => response.status === 409)).toHaveLength(kind.limit * 3);
    expect(await expectStoredMatchesLedger()).toHaveLength(kind.limit);
  });
});

describe("conditional writes under contention", () => {
  const path = "/authenticationProfiles/contended";

  beforeAll(async () => {
    // Room under the profile quota, which the races above left full.
    for (const profile of (await host.services.profiles.list({}, FIRST_PAGE)).items) {
      await host.request(`/authenticationProfiles/${profile.id}`, { method: "DELETE" });
    }
  });
  afterEach(async () => {
    await host.request(path, { method: "DELETE" });
  });

  it("answers every one of 20 simultaneous unconditional PUTs (the last write wins), creating once", async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, round) =>
        host.request(path, { method: "PUT", body: profileBody(round) }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(19);
  });

  it("applies each of 20 simultaneous PATCHes to the latest version", async () => {
    await host.request(path, { method: "PUT", body: profileBody(0) });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, round) =>
        host.request(path, { method: "PATCH", body: profileBody(round + 1) }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
  });

  it("gives one DELETE of 20 with the same If-Match the 200, and every other 412", async () => {
    const etag =
      (await host.request(path, { method: "PUT", body: profileBody(0) })).headers.get("etag") ?? "";
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        host.request(path, { method: "DELETE", headers: { "If-Match": etag } }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(412)]);
  });

  it("gives one PUT of 20 with the same If-Match the 200, and every other 412", async () => {
    const etag =
      (await host.request(path, { method: "PUT", body: profileBody(0) })).headers.get("etag") ?? "";
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, round) =>
        host.request(path, { method: "PUT", body: profileBody(round), headers: { "If-Match": etag } }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(412)]);
  });
});
