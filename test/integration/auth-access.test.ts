import { randomUUID } from "node:crypto";
import { LOCAL_TENANT_ID, type OpenIdIssuer, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { expectArmError } from "../support/arm";
import { closedPort } from "../support/closed-port";
import { ADMIN, adminEntraSettings, asPrincipal, assignRole } from "../support/entra-host";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer } from "../support/test-issuer";

// CONTRACT §6 over the wire: who may touch what, tried as an attacker would.
const SUBSCRIPTION = "/subscriptions/5d1c7a52-0000-4000-8000-00000000a5a5";
const GROUP_A = `${SUBSCRIPTION}/resourceGroups/Team-A`;
const GROUP_B = `${SUBSCRIPTION}/resourceGroups/Team-B`;
const instanceIn = (group: string, name = "plant") =>
  `${group}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${name}`;
const projectIn = (group: string) => `${group}/providers/Microsoft.Migrate/assessmentProjects/migration`;

const connection = (key: string) =>
  `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=twin-events`;
const ENDPOINT_BODY = JSON.stringify({
  queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
  queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
});
const EVENT = JSON.stringify({
  id: "e-1",
  source: "/line/1",
  specversion: "1.0",
  type: "Twin.Update",
  data: {},
});

let issuer: OpenIdIssuer;
let host: TestHost;
let admin: ReturnType<typeof asPrincipal>;
const as = (name: string, app = false) => asPrincipal(host, issuer, { name, app });
const assign = (scope: string, name: string, role: string) => assignRole(host, issuer, scope, name, role);

function forbidden(response: Response, who: string, action: string, scope: string) {
  return expectArmError(response, 403, "AuthorizationFailed").then((error) => {
    const oid = principalObjectId(who);
    expect(error.message).toBe(
      `The client '${oid}' with object id '${oid}' does not have authorization to perform action '${action}' over scope '${scope}' or the scope is invalid.`,
    );
  });
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  host = await startTestHost(adminEntraSettings(issuer));
  admin = as(ADMIN);
  for (const group of [GROUP_A, GROUP_B]) {
    for (const name of ["orders", "alarms"]) {
      const response = await admin(`${instanceIn(group)}/endpoints/${name}`, {
        method: "PUT",
        body: ENDPOINT_BODY,
      });
      expect(response.status).toBe(201);
    }
  }
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
});

describe("tokens", () => {
  it("answers 401 AuthenticationFailed with a Bearer challenge when no token comes", async () => {
    const response = await host.request(`${instanceIn(GROUP_A)}/endpoints`, { key: null });
    await expectArmError(response, 401, "AuthenticationFailed");
    expect(response.headers.get("www-authenticate")).toMatch(
      /^Bearer authorization_uri="http:\/\/127\.0\.0\.1:\d+\//,
    );
  });

  it("takes no function key in place of a token", async () => {
    const response = await host.request(`${instanceIn(GROUP_A)}/endpoints`);
    await expectArmError(response, 401, "AuthenticationFailed");
  });

  it("refuses a token in the query string, in any spelling of its name, even beside a good header", async () => {
    const token = await issuer.mint({ name: ADMIN });
    for (const name of ["access_token", "Access_Token"]) {
      const response = await host.request(`${instanceIn(GROUP_A)}/endpoints?${name}=${token}`, {
        key: null,
        headers: { authorization: `Bearer ${token}` },
      });
      await expectArmError(response, 401, "InvalidAuthenticationToken");
    }
  });

  it("says an expired token expired, in the body and the challenge", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.mint({ name: ADMIN, now: now - 7200, lifetimeSeconds: 3600 });
    const response = await host.request("/authenticationProfiles", {
      key: null,
      headers: { authorization: `Bearer ${token}` },
    });
    const error = await expectArmError(response, 401, "InvalidAuthenticationToken");
    expect(error.message).toMatch(/expired/);
    expect(response.headers.get("www-authenticate")).toMatch(
      /error="invalid_token", error_description="[^"]*expired/,
    );
  });

  it("refuses forged tokens of every kind with 401, asking the issuer nothing more", async () => {
    await admin("/authenticationProfiles"); // warm: discovery and keys fetched once
    issuer.resetRequestCounts();
    const other = await startTestIssuer();
    const now = Math.floor(Date.now() / 1000);
    const forgeries = {
      algNone: await issuer.mint({ name: ADMIN, unsigned: true }),
      foreignIssuerKey: await other.mint({ name: ADMIN }),
      otherTenant: await issuer.mint({ name: ADMIN, tenantId: "0f0f0f0f-0000-4000-8000-000000000bad" }),
      wrongAudience: await issuer.mint({ name: ADMIN, audience: "api://someone-else" }),
      notYetValid: await issuer.mint({ name: ADMIN, claims: { nbf: now + 3600 } }),
      foreignIssuerClaim: await issuer.mint({
        name: ADMIN,
        claims: { iss: "https://login.microsoftonline.com/x/v2.0" },
      }),
      jkuElsewhere: await issuer.mint({
        name: ADMIN,
        header: { jku: `${other.origin}/keys`, kid: "elsewhere" },
      }),
    };
    const good = await issuer.mint({ name: ADMIN });
    const [head, payload, signature] = good.split(".");
    const claims = JSON.parse(Buffer.from(payload as string, "base64url").toString());
    const tampered = Buffer.from(JSON.stringify({ ...claims, oid: principalObjectId("mallory") })).toString(
      "base64url",
    );
    const all = { ...forgeries, tampered: `${head}.${tampered}.${signature}` };
    for (const [kind, token] of Object.entries(all)) {
      const response = await host.request("/authenticationProfiles", {
        key: null,
        headers: { authorization: `Bearer ${token}` },
      });
      expect({ kind, status: response.status }).toEqual({ kind, status: 401 });
      expect(response.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    }
    // The unknown kid of jkuElsewhere may refresh the key set once; nothing else goes out, and
    // nothing at all to the server the token pointed at.
    expect(issuer.requestCount(issuer.discoveryUrl())).toBe(0);
    expect(issuer.requestCount(issuer.jwksUri())).toBeLessThanOrEqual(1);
    expect(other.requestCount()).toBe(0);
    await other.close();
  });

  it("never answers 5xx to a hostile Authorization header", async () => {
    const token = await issuer.mint({ name: ADMIN });
    const hostile = [
      "Bearer",
      "Bearer ",
      "bearer x.y.z",
      `Bearer ${token} ${token}`,
      `Basic ${Buffer.from("a:b").toString("base64")}`,
      `Bearer ${"a".repeat(12_000)}.b.c`,
      "Bearer ..",
      "Bearer e30.e30.",
      `Bearer ${Buffer.from('{"alg":"RS256","kid":"x"}').toString("base64url")}.${Buffer.from("[]").toString("base64url")}.AA`,
      `Bearer ${Buffer.from('{"alg":"RS256","kid":{}}').toString("base64url")}.e30.AA`,
      "Bearer \u00ff\u00fe.x.y",
    ];
    for (const value of hostile) {
      const response = await host.request("/authenticationProfiles", {
        key: null,
        headers: { authorization: value },
      });
      expect({ value: value.slice(0, 40), status: response.status }).toEqual({
        value: value.slice(0, 40),
        status: 401,
      });
    }
    // Past the host's header limit: refused before the app, still not a 5xx.
    const huge = await host.request("/authenticationProfiles", {
      key: null,
      headers: { authorization: `Bearer ${"a".repeat(40_000)}.b.c` },
    });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
  });

  it("answers 503 with Retry-After, never 401 nor a pass, when the authority cannot be reached", async () => {
    const down = `http://127.0.0.1:${await closedPort()}/${LOCAL_TENANT_ID}/v2.0`;
    const cut = await startTestHost(
      { ...adminEntraSettings(issuer), AUTH_AUTHORITY: down },
      host.config.COSMOS_DATABASE,
    );
    try {
      const token = await issuer.mint({ name: ADMIN });
      const response = await cut.request("/authenticationProfiles", {
        key: null,
        headers: { authorization: `Bearer ${token}` },
      });
      await expectArmError(response, 503, "ServiceUnavailable");
      expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      await cut.stop();
    }
  });

  it("names the principal in the request's log line, never the token", async () => {
    const token = await issuer.mint({ name: "logged" });
    await host.request("/authenticationProfiles", {
      key: null,
      headers: { authorization: `Bearer ${token}` },
    });
    const lines = host.logs
      .map((entry) => entry.message)
      .filter((line) => line.startsWith("GET /authenticationProfiles"));
    expect(lines.some((line) => line.endsWith(`principal ${principalObjectId("logged")})`))).toBe(true);
    const signature = token.split(".")[2] as string;
    expect(host.logs.filter((entry) => entry.message.includes(signature))).toEqual([]);
  });

  it("takes v1 and v2 tokens, users and apps, the client id and the App ID URI as audience", async () => {
    for (const options of [{ version: "1.0" as const }, { version: "2.0" as const }, { app: true }]) {
      const response = await asPrincipal(host, issuer, { name: ADMIN, ...options })(
        "/authenticationProfiles",
      );
      expect(response.status).toBe(200);
    }
  });
});

describe("a Reader of resource group A", () => {
  beforeAll(() => assign(GROUP_A, "reader-a", "Reader"));

  it("reads A's endpoints, one and all", async () => {
    const reader = as("reader-a");
    expect((await reader(`${instanceIn(GROUP_A)}/endpoints/orders`)).status).toBe(200);
    const list = await reader(`${instanceIn(GROUP_A)}/endpoints`);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { value: unknown[] }).value).toHaveLength(2);
  });

  it("reads A by another casing of its name, which is the same group", async () => {
    const reader = as("reader-a");
    expect((await reader(`${instanceIn(GROUP_A.replace("Team-A", "team-a"))}/endpoints/ORDERS`)).status).toBe(
      200,
    );
  });

  it("is refused every write in A, under any casing", async () => {
    const reader = as("reader-a");
    const endpoint = `${instanceIn(GROUP_A)}/endpoints/orders`;
    const write = "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/write";
    await forbidden(
      await reader(endpoint, { method: "PUT", body: ENDPOINT_BODY }),
      "reader-a",
      write,
      endpoint,
    );
    await forbidden(await reader(endpoint, { method: "PATCH", body: "{}" }), "reader-a", write, endpoint);
    const lower = endpoint.replace("Team-A", "team-a");
    await forbidden(
      await reader(lower, { method: "DELETE" }),
      "reader-a",
      write.replace("write", "delete"),
      lower,
    );
    const events = `${instanceIn(GROUP_A)}/events`;
    await forbidden(
      await reader(events, { method: "POST", body: EVENT }),
      "reader-a",
      "Microsoft.DigitalTwins/digitalTwinsInstances/events/action",
      events,
    );
    expect((await admin(endpoint)).status).toBe(200);
  });

  it("is refused everything under B, lists too, whether or not it exists", async () => {
    const reader = as("reader-a");
    const read = "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read";
    for (const path of [
      `${instanceIn(GROUP_B)}/endpoints/orders`,
      `${instanceIn(GROUP_B)}/endpoints/never-made`,
      `${instanceIn(GROUP_B)}/endpoints`,
    ]) {
      await forbidden(await reader(path), "reader-a", read, path);
    }
  });

  it("is refused look-alike groups: a longer name, and names that try to climb back to A", async () => {
    const reader = as("reader-a");
    for (const group of [
      "Team-A2",
      "Team-A.",
      "Team-B%2F..%2FTeam-A",
      "Team-B%2F..",
      "Team-A%2F..%2FTeam-B",
    ]) {
      const response = await reader(`${instanceIn(`${SUBSCRIPTION}/resourceGroups/${group}`)}/endpoints`);
      expect({ group, status: response.status }).toEqual({
        group,
        status: response.status === 400 ? 400 : 403,
      });
      expect(response.status).not.toBe(200);
    }
  });

  it("may not assign roles, even in A", async () => {
    const at = `${GROUP_A}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
    const body = JSON.stringify({ principalId: principalObjectId("reader-a"), roleDefinitionName: "Owner" });
    await forbidden(
      await as("reader-a")(at, { method: "PUT", body }),
      "reader-a",
      "Microsoft.Authorization/roleAssignments/write",
      at,
    );
  });
});

describe("Contributor and Owner", () => {
  beforeAll(async () => {
    await assign(GROUP_A, "contributor-a", "Contributor");
    await assign(GROUP_A, "owner-a", "Owner");
  });

  it("a Contributor writes in A but cannot create a role assignment there", async () => {
    const contributor = as("contributor-a");
    const endpoint = `${instanceIn(GROUP_A)}/endpoints/by-contributor`;
    const created = await contributor(endpoint, { method: "PUT", body: ENDPOINT_BODY });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { systemData: Record<string, string> };
    expect(body.systemData).toMatchObject({
      createdBy: principalObjectId("contributor-a"),
      createdByType: "User",
      lastModifiedBy: principalObjectId("contributor-a"),
    });
    const at = `${GROUP_A}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
    const assignment = JSON.stringify({ principalId: principalObjectId("x"), roleDefinitionName: "Reader" });
    await forbidden(
      await contributor(at, { method: "PUT", body: assignment }),
      "contributor-a",
      "Microsoft.Authorization/roleAssignments/write",
      at,
    );
    expect((await contributor(`${GROUP_A}/providers/Microsoft.Authorization/roleAssignments`)).status).toBe(
      200,
    );
  });

  it("an Owner of A assigns in A, never at the subscription above it nor in B", async () => {
    const owner = as("owner-a");
    const body = JSON.stringify({ principalId: principalObjectId("helper"), roleDefinitionName: "Reader" });
    const inA = `${instanceIn(GROUP_A)}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
    expect((await owner(inA, { method: "PUT", body })).status).toBe(201);
    for (const scope of [SUBSCRIPTION, GROUP_B, "", "/authenticationProfiles"]) {
      const at = `${scope}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
      await forbidden(
        await owner(at, { method: "PUT", body }),
        "owner-a",
        "Microsoft.Authorization/roleAssignments/write",
        at,
      );
    }
  });
});

describe("a Twin Events Sender of instance X", () => {
  const x = instanceIn(GROUP_A, "x-twins");
  const y = instanceIn(GROUP_A, "y-twins");
  beforeAll(() => assign(x, "x-identity", "Twin Events Sender"));

  it("posts events to X, and nothing else: not to Y, not X's endpoints", async () => {
    const sender = asPrincipal(host, issuer, { name: "x-identity", app: true });
    const posted = await sender(`${x}/events`, { method: "POST", body: EVENT });
    expect(posted.status).toBe(202);
    const action = "Microsoft.DigitalTwins/digitalTwinsInstances/events/action";
    await forbidden(
      await sender(`${y}/events`, { method: "POST", body: EVENT }),
      "x-identity",
      action,
      `${y}/events`,
    );
    await forbidden(
      await sender(`${x}/endpoints`),
      "x-identity",
      "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read",
      `${x}/endpoints`,
    );
  });
});

describe("an Assessment Writer", () => {
  it("writes assessments of its project as a service principal, recorded in systemData", async () => {
    const project = projectIn(GROUP_A);
    await assign(project, "producer", "Assessment Writer");
    const producer = asPrincipal(host, issuer, { name: "producer", app: true });
    const { ASSESSMENT_INPUT } = await import("../client/fixtures");
    const path = `${project}/clusterAssessments/first?api-version=2023-09-09-preview`;
    const response = await producer(path, { method: "PUT", body: JSON.stringify(ASSESSMENT_INPUT) });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { systemData: Record<string, string> };
    expect(body.systemData).toMatchObject({
      createdBy: principalObjectId("producer"),
      createdByType: "ServicePrincipal",
    });
    const elsewhere = `${projectIn(GROUP_B)}/clusterAssessments/first`;
    expect(
      (await producer(elsewhere, { method: "PUT", body: JSON.stringify(ASSESSMENT_INPUT) })).status,
    ).toBe(403);
  });
});

describe("lists", () => {
  it("hold only what the caller may read: a Reader of one endpoint sees that one", async () => {
    await assign(`${instanceIn(GROUP_B)}/endpoints/alarms`, "one-endpoint", "Reader");
    const response = await as("one-endpoint")(`${instanceIn(GROUP_B)}/endpoints`);
    expect(response.status).toBe(200);
    const { value } = (await response.json()) as { value: { name: string }[] };
    expect(value.map((endpoint) => endpoint.name)).toEqual(["alarms"]);
  });

  it("of role assignments hold those at and above the scope", async () => {
    const response = await admin(`${instanceIn(GROUP_A)}/providers/Microsoft.Authorization/roleAssignments`);
    const { value } = (await response.json()) as { value: { scope: string }[] };
    expect(value.length).toBeGreaterThan(0);
    for (const assignment of value)
      expect(instanceIn(GROUP_A).toLowerCase().startsWith(assignment.scope.toLowerCase())).toBe(true);
    expect(value.some((assignment) => assignment.scope === GROUP_A)).toBe(true);
  });
});

describe("revocation", () => {
  it("stops a deleted assignment at once on the host that deleted it", async () => {
    const assignment = await assign(GROUP_B, "temporary", "Reader");
    expect((await as("temporary")(`${instanceIn(GROUP_B)}/endpoints`)).status).toBe(200);
    expect((await admin(assignment, { method: "DELETE" })).status).toBe(200);
    expect((await as("temporary")(`${instanceIn(GROUP_B)}/endpoints`)).status).toBe(403);
  });

  it("stops it within AUTH_CACHE_SECONDS on another host that had it cached", async () => {
    const cacheSeconds = 1;
    const cached = await startTestHost(adminEntraSettings(issuer, cacheSeconds), host.config.COSMOS_DATABASE);
    try {
      const assignment = await assign(GROUP_B, "revoked", "Reader");
      const onCached = asPrincipal(cached, issuer, { name: "revoked" });
      expect((await onCached(`${instanceIn(GROUP_B)}/endpoints`)).status).toBe(200);
      expect((await admin(assignment, { method: "DELETE" })).status).toBe(200);
      // Cached before the DELETE, so gone from the cache AUTH_CACHE_SECONDS after it at the latest:
      // waited out, then asked once. A wait, not a bound: however slow the machine, later is no
      // less past it, while a cache held longer than it is told answers 200.
      await new Promise((resolve) => setTimeout(resolve, cacheSeconds * 1000 + 100));
      expect((await onCached(`${instanceIn(GROUP_B)}/endpoints`)).status).toBe(403);
    } finally {
      await cached.stop();
    }
  });
});

describe("role assignments", () => {
  const scope = `${GROUP_B}/providers/Microsoft.Authorization/roleAssignments`;
  const body = (principal: string, role: string) =>
    JSON.stringify({ principalId: principalObjectId(principal), roleDefinitionName: role });

  it("are created once: the same again is 200, a change is 409 RoleAssignmentUpdateNotPermitted", async () => {
    const at = `${scope}/${randomUUID()}`;
    expect((await admin(at, { method: "PUT", body: body("carol", "Reader") })).status).toBe(201);
    const again = await admin(at, { method: "PUT", body: body("carol", "Reader") });
    expect(again.status).toBe(200);
    const read = (await again.json()) as Record<string, unknown>;
    expect(read).toMatchObject({
      principalId: principalObjectId("carol"),
      roleDefinitionName: "Reader",
      roleDefinitionId:
        "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
      scope: GROUP_B,
      type: "Microsoft.Authorization/roleAssignments",
    });
    await expectArmError(
      await admin(at, { method: "PUT", body: body("carol", "Owner") }),
      409,
      "RoleAssignmentUpdateNotPermitted",
    );
    await expectArmError(
      await admin(at, { method: "PUT", body: body("dave", "Reader") }),
      409,
      "RoleAssignmentUpdateNotPermitted",
    );
  });

  it("refuse the same principal, role and scope under another name (RoleAssignmentExists)", async () => {
    expect(
      (await admin(`${scope}/${randomUUID()}`, { method: "PUT", body: body("erin", "Reader") })).status,
    ).toBe(201);
    const second = await admin(`${scope}/${randomUUID()}`, { method: "PUT", body: body("erin", "Reader") });
    await expectArmError(second, 409, "RoleAssignmentExists");
  });

  it("keep their name to their scope: the name at another scope is 409, and not found there", async () => {
    const name = randomUUID();
    expect((await admin(`${scope}/${name}`, { method: "PUT", body: body("frank", "Reader") })).status).toBe(
      201,
    );
    const elsewhere = `${GROUP_A}/providers/Microsoft.Authorization/roleAssignments/${name}`;
    expect((await admin(elsewhere)).status).toBe(404);
    await expectArmError(
      await admin(elsewhere, { method: "PUT", body: body("frank", "Reader") }),
      409,
      "RoleAssignmentUpdateNotPermitted",
    );
    expect((await admin(elsewhere, { method: "DELETE" })).status).toBe(204);
    expect((await admin(`${scope}/${name}`)).status).toBe(200);
  });

  it("take their read-only fields echoed unchanged, and refuse any other value", async () => {
    const at = `${scope}/${randomUUID()}`;
    const created = await admin(at, { method: "PUT", body: body("echo", "Reader") });
    const resource = (await created.json()) as Record<string, unknown>;
    expect((await admin(at, { method: "PUT", body: JSON.stringify(resource) })).status).toBe(200);
    for (const [field, value] of Object.entries({
      scope: GROUP_A,
      id: `${GROUP_A}/x`,
      name: randomUUID(),
      type: "x",
    })) {
      const changed = JSON.stringify({ ...resource, [field]: value });
      await expectArmError(
        await admin(at, { method: "PUT", body: changed }),
        400,
        "InvalidRequestContent",
        field,
      );
    }
  });

  it("refuse unknown roles, bad names and scopes that are not ARM paths", async () => {
    await expectArmError(
      await admin(`${scope}/${randomUUID()}`, { method: "PUT", body: body("g", "Superuser") }),
      400,
      "InvalidRequestContent",
    );
    await expectArmError(
      await admin(`${scope}/not-a-guid`, { method: "PUT", body: body("g", "Reader") }),
      400,
      "InvalidRequestContent",
    );
    const onAssignment = `${GROUP_B}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
    const response = await admin(onAssignment, { method: "PUT", body: body("g", "Reader") });
    expect([400, 404]).toContain(response.status);
  });

  it("hold under racing PUTs and DELETEs of one name: at most one stored, and access follows what is stored", async () => {
    const name = randomUUID();
    const at = `${scope}/${name}`;
    for (let round = 0; round < 8; round++) {
      const statuses = await Promise.all([
        admin(at, { method: "PUT", body: body("racer", "Reader") }).then((r) => r.status),
        admin(at, { method: "DELETE" }).then((r) => r.status),
        admin(at, { method: "PUT", body: body("racer", "Reader") }).then((r) => r.status),
        admin(at, { method: "DELETE" }).then((r) => r.status),
      ]);
      for (const status of statuses) expect([200, 201, 204]).toContain(status);
      const stored = (await admin(at)).status === 200;
      const access = (await as("racer")(`${instanceIn(GROUP_B)}/endpoints`)).status;
      expect({ round, access }).toEqual({ round, access: stored ? 200 : 403 });
    }
  });
});
