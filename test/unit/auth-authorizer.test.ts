import { type ArmId, parseArmId, profileId } from "../../src/auth/arm-id";
import { Authorizer, type AuthorizerOptions, type GrantRecord } from "../../src/auth/authorizer";
import type { EntraPrincipal } from "../../src/auth/principal";

const TENANT = "00000000-0000-4000-8000-00000000a11d";
const OTHER_TENANT = "11111111-2222-4333-8444-555555555555";
const ADMIN = "aaaaaaaa-0000-4000-8000-000000000001";
const USER = "bbbbbbbb-0000-4000-8000-000000000002";
const OWNER_ID = "/providers/Microsoft.Authorization/roleDefinitions/8e3af657-a8ff-443c-a75c-2fe8c4bcb635";
const READER_ID = "acdd72a7-3385-48ef-bd42-f606fba81ae7";
const ASSIGN_WRITE = "Microsoft.Authorization/roleAssignments/write";
const PROFILE_READ = "TwinResources/authenticationProfiles/read";
const PROFILE_WRITE = "TwinResources/authenticationProfiles/write";

function principal(objectId: string, tenantId = TENANT): EntraPrincipal {
  return { kind: "entra", objectId, tenantId, type: "User" };
}

function scope(path: string): ArmId {
  const id = parseArmId(path);
  if (id === undefined) throw new Error(`${path} is no ARM id`);
  return id;
}

function record(path: string, roleDefinition: string, tenantId?: string): GrantRecord {
  return { scope: path, roleDefinition, ...(tenantId !== undefined && { tenantId }) };
}

/** An authorizer over an in-memory list of assignments, counting loads. */
function authorizer(records: Record<string, GrantRecord[]>, options: Partial<AuthorizerOptions> = {}) {
  const loads: string[] = [];
  const made = new Authorizer({
    load: async (objectId) => {
      loads.push(objectId);
      return records[objectId] ?? [];
    },
    admins: [{ tenantId: TENANT.toUpperCase(), objectId: ADMIN.toUpperCase() }],
    cacheMs: 30_000,
    ...options,
  });
  return { authorizer: made, loads };
}

let now = 1_000_000;
beforeEach(() => {
  now = 1_000_000;
  jest.spyOn(Date, "now").mockImplementation(() => now);
});
afterEach(() => jest.restoreAllMocks());

describe("what a principal may do", () => {
  it("makes the admins Owner at '/' without an assignment, in their own tenant only, whatever the ids' case", async () => {
    const { authorizer: auth } = authorizer({});
    const grants = await auth.grantsOf(principal(ADMIN));
    expect(grants.permits(ASSIGN_WRITE, scope("/"))).toBe(true);
    expect(grants.permits(PROFILE_WRITE, scope("/authenticationProfiles/x"))).toBe(true);
    // The same object id in another tenant is another principal.
    const elsewhere = await auth.grantsOf(principal(ADMIN, OTHER_TENANT));
    expect(elsewhere.permits(PROFILE_READ, scope("/authenticationProfiles/x"))).toBe(false);
    expect(
      (await auth.grantsOf(principal(USER))).permits(PROFILE_READ, scope("/authenticationProfiles/x")),
    ).toBe(false);
    const both = authorizer(
      {},
      {
        admins: [
          { tenantId: TENANT, objectId: ADMIN },
          { tenantId: OTHER_TENANT, objectId: ADMIN },
        ],
      },
    ).authorizer;
    for (const tenant of [TENANT, OTHER_TENANT])
      expect((await both.grantsOf(principal(ADMIN, tenant))).permits(ASSIGN_WRITE, scope("/"))).toBe(true);
  });

  it("ignores an assignment made in another tenant, and keeps one without a tenant or of its own", async () => {
    const { authorizer: auth } = authorizer({
      [USER]: [
        record("/authenticationProfiles/other", OWNER_ID, OTHER_TENANT),
        record("/authenticationProfiles/mine", OWNER_ID, TENANT),
        record("/authenticationProfiles/any", READER_ID),
      ],
    });
    const grants = await auth.grantsOf(principal(USER));
    expect(grants.permits(PROFILE_WRITE, scope("/authenticationProfiles/other"))).toBe(false);
    expect(grants.permits(PROFILE_WRITE, scope("/authenticationProfiles/MINE"))).toBe(true);
    expect(grants.permits(PROFILE_READ, scope("/authenticationProfiles/any"))).toBe(true);
    expect(grants.permits(PROFILE_WRITE, scope("/authenticationProfiles/any"))).toBe(false);
  });

  it("ignores an assignment of a role that does not exist", async () => {
    const { authorizer: auth } = authorizer({ [USER]: [record("/", "not-a-role"), record("/", "")] });
    expect(
      (await auth.grantsOf(principal(USER))).permits(PROFILE_READ, scope("/authenticationProfiles/x")),
    ).toBe(false);
  });

  it("names the items of a list a caller may read when it holds roles on those items only", async () => {
    const { authorizer: auth } = authorizer({
      [USER]: [
        record("/authenticationProfiles/a", READER_ID),
        record("/authenticationProfiles/B", READER_ID),
        record("/subscriptions/s/resourceGroups/a", READER_ID),
        record("/authenticationProfiles/providers", "not-a-role"),
      ],
    });
    const grants = await auth.grantsOf(principal(USER));
    expect(grants.permits(PROFILE_READ, scope("/authenticationProfiles"))).toBe(false);
    expect(grants.itemsPermitted(PROFILE_READ, profileId).sort()).toEqual(["B", "a"]);
    expect(grants.itemsPermitted(PROFILE_WRITE, profileId)).toEqual([]);
  });

  it("never reads a scope no route makes as another scope: a provider with no resource grants nothing", async () => {
    const { authorizer: auth } = authorizer({
      [USER]: [
        record(
          "/subscriptions/s/resourceGroups/g/providers/Microsoft.DigitalTwins/digitalTwinsInstances/i/providers/Microsoft.Authorization",
          OWNER_ID,
        ),
      ],
    });
    const grants = await auth.grantsOf(principal(USER));
    expect(
      grants.permits(
        ASSIGN_WRITE,
        scope("/subscriptions/s/resourceGroups/g/providers/Microsoft.DigitalTwins/digitalTwinsInstances/i"),
      ),
    ).toBe(false);
  });
});

describe("the cache", () => {
  it("reads a principal's assignments once per cacheMs, and again after it", async () => {
    const { authorizer: auth, loads } = authorizer({}, { cacheMs: 1000 });
    await auth.grantsOf(principal(USER));
    now += 999;
    await auth.grantsOf(principal(USER));
    expect(loads).toHaveLength(1);
    now += 1;
    await auth.grantsOf(principal(USER));
    expect(loads).toHaveLength(2);
  });

  it("sees a revoked assignment once the period is over, and at once after forget()", async () => {
    const records: Record<string, GrantRecord[]> = { [USER]: [record("/", OWNER_ID)] };
    const { authorizer: auth } = authorizer(records, { cacheMs: 1000 });
    expect(
      (await auth.grantsOf(principal(USER))).permits(PROFILE_WRITE, scope("/authenticationProfiles/a")),
    ).toBe(true);
    records[USER] = [];
    expect(
      (await auth.grantsOf(principal(USER))).permits(PROFILE_WRITE, scope("/authenticationProfiles/a")),
    ).toBe(true);
    auth.forget(USER.toUpperCase());
    expect(
      (await auth.grantsOf(principal(USER))).permits(PROFILE_WRITE, scope("/authenticationProfiles/a")),
    ).toBe(false);
  });

  it("forget() drops the principal in every tenant and no one else", async () => {
    const { authorizer: auth, loads } = authorizer({});
    await Promise.all([
      auth.grantsOf(principal(USER)),
      auth.grantsOf(principal(USER, OTHER_TENANT)),
      auth.grantsOf(principal(ADMIN)),
    ]);
    auth.forget(USER);
    await Promise.all([
      auth.grantsOf(principal(USER)),
      auth.grantsOf(principal(USER, OTHER_TENANT)),
      auth.grantsOf(principal(ADMIN)),
    ]);
    expect(loads.filter((id) => id === USER)).toHaveLength(4);
    expect(loads.filter((id) => id === ADMIN)).toHaveLength(1);
  });

  it("shares one read among concurrent first requests of a principal", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let loads = 0;
    const auth = new Authorizer({
      load: async () => {
        loads++;
        await gate;
        return [record("/", READER_ID)];
      },
      admins: [],
      cacheMs: 30_000,
    });
    const pending = Array.from({ length: 20 }, () => auth.grantsOf(principal(USER)));
    release();
    const all = await Promise.all(pending);
    expect(loads).toBe(1);
    expect(new Set(all).size).toBe(1);
  });

  it("keeps no failed read: the next request reads again, and succeeds", async () => {
    let fail = true;
    let loads = 0;
    const auth = new Authorizer({
      load: async () => {
        loads++;
        if (fail) throw new Error("store down");
        return [record("/", READER_ID)];
      },
      admins: [],
      cacheMs: 30_000,
    });
    const first = await Promise.allSettled([auth.grantsOf(principal(USER)), auth.grantsOf(principal(USER))]);
    expect(first.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect(loads).toBe(1);
    fail = false;
    expect(
      (await auth.grantsOf(principal(USER))).permits(PROFILE_READ, scope("/authenticationProfiles/x")),
    ).toBe(true);
    expect(loads).toBe(2);
  });

  it("never lets an old read that fails late evict a newer good one", async () => {
    let rejectOld: (error: Error) => void = () => undefined;
    let loads = 0;
    const auth = new Authorizer({
      load: () => {
        loads++;
        if (loads === 1)
          return new Promise((_, reject) => {
            rejectOld = reject;
          });
        return Promise.resolve([record("/", READER_ID)]);
      },
      admins: [],
      cacheMs: 1000,
    });
    const old = auth.grantsOf(principal(USER));
    now += 1000; // the old entry has expired: the next request reads again
    await auth.grantsOf(principal(USER));
    rejectOld(new Error("late failure"));
    await expect(old).rejects.toThrow("late failure");
    await auth.grantsOf(principal(USER));
    expect(loads).toBe(2);
  });

  it("keeps nothing with cacheMs 0", async () => {
    const { authorizer: auth, loads } = authorizer({}, { cacheMs: 0 });
    await auth.grantsOf(principal(USER));
    await auth.grantsOf(principal(USER));
    expect(loads).toHaveLength(2);
  });

  it("keeps at most maxEntries principals, dropping the oldest", async () => {
    const { authorizer: auth, loads } = authorizer({}, { maxEntries: 3 });
    const ids = Array.from({ length: 5 }, (_, index) => `cccccccc-0000-4000-8000-00000000000${index}`);
    for (const id of ids) await auth.grantsOf(principal(id));
    expect(loads).toHaveLength(5);
    // The three newest are kept...
    for (const id of ids.slice(2)) await auth.grantsOf(principal(id));
    expect(loads).toHaveLength(5);
    // ...and the two oldest were dropped.
    await auth.grantsOf(principal(ids[0] as string));
    expect(loads).toHaveLength(6);
    expect((auth as unknown as { cache: Map<string, unknown> }).cache.size).toBeLessThanOrEqual(3);
  });
});
