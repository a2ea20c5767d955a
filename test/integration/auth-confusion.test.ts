import { randomUUID } from "node:crypto";
import { SAMPLE_ASSESSMENTS } from "../../dev/seed/sample-assessments";
import { type OpenIdIssuer, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { expectArmError } from "../support/arm";
import { ADMIN, adminEntraSettings, asPrincipal, assignRole } from "../support/entra-host";
import { ROUTE_KEYWORDS } from "../support/route-keywords";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer } from "../support/test-issuer";

// Issue 27's breaks, tried again over the wire: a name that is also a keyword, lists under partial
// grants, and a revoked Owner on a host whose cache still holds its grants.
const GROUP = "/subscriptions/5d1c7a52-0000-4000-8000-00000000c0f5/resourceGroups/keywords";
const INSTANCE = `${GROUP}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant`;
const PROJECT = `${GROUP}/providers/Microsoft.Migrate/assessmentProjects/migration`;
const ASSIGNMENTS = "providers/Microsoft.Authorization/roleAssignments";

const connection = (key: string) =>
  `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=twin-events`;
const ENDPOINT_BODY = JSON.stringify({
  queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
  queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
});
const PROFILE_BODY = JSON.stringify({ authenticationProfileContent: '{"allowedDatabases":["dev"]}' });
const ASSESSMENT_BODY = JSON.stringify(SAMPLE_ASSESSMENTS[1]?.body);

let issuer: OpenIdIssuer;
let host: TestHost;
let admin: ReturnType<typeof asPrincipal>;
const as = (name: string) => asPrincipal(host, issuer, { name });
const assign = (scope: string, name: string, role: string) => assignRole(host, issuer, scope, name, role);

function assignmentBody(name: string, roleDefinitionName: string) {
  return JSON.stringify({ principalId: principalObjectId(name), roleDefinitionName });
}

async function put(path: string, body: string) {
  const response = await admin(path, { method: "PUT", body });
  if (response.status !== 201 && response.status !== 200)
    throw new Error(`PUT ${path}: ${response.status} ${await response.text()}`);
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  host = await startTestHost(adminEntraSettings(issuer));
  admin = as(ADMIN);
  for (const name of ["providers", "a", "b", "c", "d", "e"])
    await put(`/authenticationProfiles/${name}`, PROFILE_BODY);
  for (const name of ["ep0", "ep1", "ep2", "ep3", "ep4"])
    await put(`${INSTANCE}/endpoints/${name}`, ENDPOINT_BODY);
}, 60_000);
afterAll(async () => {
  await host.stop();
  await issuer.close();
});

describe("a name that is also a keyword", () => {
  it("gives an Owner of the profile named providers nothing over the profiles, their assignments or the root", async () => {
    const owner = `owner-${randomUUID()}`;
    const other = `other-${randomUUID()}`;
    await assign("/authenticationProfiles/providers", owner, "Owner");
    const profileWide = await assign("/authenticationProfiles", other, "Reader");
    const m = as(owner);

    // Its own profile, and assignments on it: yes.
    expect((await m("/authenticationProfiles/providers")).status).toBe(200);
    const onItsProfile = `/authenticationProfiles/providers/${ASSIGNMENTS}/${randomUUID()}`;
    expect((await m(onItsProfile, { method: "PUT", body: assignmentBody(other, "Reader") })).status).toBe(
      201,
    );

    // The escalation of the report: an Owner assignment for itself at /authenticationProfiles.
    const escalation = await m(`/authenticationProfiles/${ASSIGNMENTS}/${randomUUID()}`, {
      method: "PUT",
      body: assignmentBody(owner, "Owner"),
    });
    const error = await expectArmError(escalation, 403, "AuthorizationFailed");
    expect(error.message).toContain(
      "'Microsoft.Authorization/roleAssignments/write' over scope '/authenticationProfiles/providers/Microsoft.Authorization/roleAssignments/",
    );
    for (const path of ["/authenticationProfiles/a", "/authenticationProfiles/providers2"])
      await expectArmError(await m(path, { method: "PUT", body: PROFILE_BODY }), 403, "AuthorizationFailed");
    await expectArmError(await m("/authenticationProfiles/a"), 403, "AuthorizationFailed");
    await expectArmError(
      await m("/authenticationProfiles/a", { method: "DELETE" }),
      403,
      "AuthorizationFailed",
    );

    // Nor may it list or delete the assignments at /authenticationProfiles or at the root.
    await expectArmError(await m(`/authenticationProfiles/${ASSIGNMENTS}`), 403, "AuthorizationFailed");
    await expectArmError(await m(`/${ASSIGNMENTS}`), 403, "AuthorizationFailed");
    await expectArmError(await m(profileWide, { method: "DELETE" }), 403, "AuthorizationFailed");
    expect((await admin(profileWide)).status).toBe(200);
  });

  it("gives a Reader of the profile named providers no list of the assignments above it", async () => {
    const reader = `reader-${randomUUID()}`;
    await assign("/authenticationProfiles/providers", reader, "Reader");
    const m = as(reader);
    const own = await m(`/authenticationProfiles/providers/${ASSIGNMENTS}`);
    expect(own.status).toBe(200);
    await expectArmError(await m(`/authenticationProfiles/${ASSIGNMENTS}`), 403, "AuthorizationFailed");
    await expectArmError(await m(`/${ASSIGNMENTS}`), 403, "AuthorizationFailed");
  });

  it("refuses a scope that ends in a provider, so no one can be Owner at <instance>/providers/Microsoft.Authorization", async () => {
    const path = `${INSTANCE}/providers/Microsoft.Authorization/${ASSIGNMENTS}/${randomUUID()}`;
    const response = await admin(path, { method: "PUT", body: assignmentBody(`x-${randomUUID()}`, "Owner") });
    const error = await expectArmError(response, 400, "InvalidRequestContent");
    expect(JSON.stringify(error.details)).toContain("childResourceType");
  });

  it("treats a subscription, resource group, instance or endpoint named like a keyword as a name at every position", async () => {
    // Each keyword at every position whose rules take it (a subscription id has no dots, an instance or endpoint name neither).
    const plain = /^[A-Za-z0-9][A-Za-z0-9-]+[A-Za-z0-9]$/;
    for (const keyword of ROUTE_KEYWORDS) {
      const fits = (fallback: string) => (plain.test(keyword) ? keyword : fallback);
      const group = `/subscriptions/${fits("sub-1")}/resourceGroups/${keyword}`;
      const instance = `${group}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${fits("plant")}`;
      const endpoint = `${instance}/endpoints/${fits("ep-1")}`;
      const holder = `kw-${randomUUID()}`;
      await assign(endpoint, holder, "Owner");
      const m = as(holder);
      expect((await m(endpoint, { method: "PUT", body: ENDPOINT_BODY })).status).toBe(201);
      expect(
        (
          await m(`${endpoint}/${ASSIGNMENTS}/${randomUUID()}`, {
            method: "PUT",
            body: assignmentBody(`p-${randomUUID()}`, "Reader"),
          })
        ).status,
      ).toBe(201);
      for (const [method, path] of [
        ["PUT", `${instance}/endpoints/other`],
        ["GET", `${instance}/endpoints/other`],
        ["PUT", `${instance}/${ASSIGNMENTS}/${randomUUID()}`],
        ["PUT", `${group}/${ASSIGNMENTS}/${randomUUID()}`],
        ["GET", `${group}/${ASSIGNMENTS}`],
        ["POST", `${instance}/events`],
      ] as const) {
        const body = path.includes("roleAssignments")
          ? assignmentBody(holder, "Owner")
          : method === "POST"
            ? "[]"
            : ENDPOINT_BODY;
        const response = await m(path, { method, ...(method === "GET" ? {} : { body }) });
        expect({ keyword, method, path, status: response.status }).toEqual({
          keyword,
          method,
          path,
          status: 403,
        });
      }
    }
  });
});

/** The names a skip token could carry, decoded as the report decoded them. */
function decodedToken(nextLink: string): string {
  const token = new URL(nextLink).searchParams.get("$skipToken") ?? "";
  return Buffer.from(token, "base64url").toString("utf8");
}

async function pages(m: ReturnType<typeof asPrincipal>, first: string) {
  const names: string[][] = [];
  const tokens: string[] = [];
  let next: string | undefined = first;
  while (next !== undefined && names.length < 10) {
    const response: Response = await m(next.replace(/^https?:\/\/[^/]+/, ""));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { value: { name?: string; id: string }[]; nextLink?: string };
    names.push(body.value.map((item) => item.name ?? item.id));
    next = body.nextLink;
    if (next !== undefined) tokens.push(decodedToken(next));
  }
  return { names, tokens };
}

describe("lists under partial grants", () => {
  it("page through the readable endpoints alone: no hidden name, no hidden count", async () => {
    const reader = `eps-${randomUUID()}`;
    await assign(`${INSTANCE}/endpoints/ep1`, reader, "Reader");
    await assign(`${INSTANCE}/endpoints/ep3`, reader, "Reader");
    const { names, tokens } = await pages(as(reader), `${INSTANCE}/endpoints?$top=1`);
    expect(names).toEqual([["ep1"], ["ep3"]]);
    for (const token of tokens)
      for (const hidden of ["ep0", "ep2", "ep4"]) expect(token).not.toContain(hidden);

    const one = `ep-${randomUUID()}`;
    await assign(`${INSTANCE}/endpoints/ep1`, one, "Reader");
    expect((await pages(as(one), `${INSTANCE}/endpoints?$top=1`)).names).toEqual([["ep1"]]);
  });

  it("do the same for profiles and assessments", async () => {
    for (const name of ["x0", "x1", "x2"])
      await put(`${PROJECT}/clusterAssessments/${name}`, ASSESSMENT_BODY);
    const reader = `mixed-${randomUUID()}`;
    await assign("/authenticationProfiles/b", reader, "Reader");
    await assign(`${PROJECT}/clusterAssessments/x1`, reader, "Reader");
    const profiles = await pages(as(reader), "/authenticationProfiles?$top=1");
    expect(profiles.names).toEqual([["b"]]);
    const assessments = await pages(as(reader), `${PROJECT}/clusterAssessments?$top=1`);
    expect(assessments.names).toEqual([["x1"]]);
  });

  it("refuse a caller with no role on any item, and a role on another list's item opens nothing", async () => {
    const stranger = `stranger-${randomUUID()}`;
    await assign(`${INSTANCE}/endpoints/ep1`, stranger, "Twin Events Sender");
    await assign(`${INSTANCE.replace(/plant$/, "plant2")}/endpoints/ep3`, stranger, "Reader");
    await expectArmError(await as(stranger)(`${INSTANCE}/endpoints?$top=1`), 403, "AuthorizationFailed");
    await expectArmError(await as(stranger)("/authenticationProfiles"), 403, "AuthorizationFailed");
  });
});

describe("a revoked Owner", () => {
  let second: TestHost;
  beforeAll(async () => {
    second = await startTestHost({ ...adminEntraSettings(issuer, 60) }, host.config.COSMOS_DATABASE);
  });
  afterAll(() => second.stop());

  it("cannot grant itself or anyone access again on a host whose cache still holds its grants", async () => {
    const owner = `revoked-${randomUUID()}`;
    const puppet = `puppet-${randomUUID()}`;
    const granted = await assign("/authenticationProfiles/c", owner, "Owner");
    const onSecond = asPrincipal(second, issuer, { name: owner });
    expect((await onSecond("/authenticationProfiles/c")).status).toBe(200); // now cached on the second host

    expect((await admin(granted, { method: "DELETE" })).status).toBe(200);
    for (const who of [owner, puppet]) {
      const response = await onSecond(`/authenticationProfiles/c/${ASSIGNMENTS}/${randomUUID()}`, {
        method: "PUT",
        body: assignmentBody(who, "Owner"),
      });
      await expectArmError(response, 403, "AuthorizationFailed");
    }
    const someone = await assign("/authenticationProfiles/c", `someone-${randomUUID()}`, "Reader");
    await expectArmError(await onSecond(someone, { method: "DELETE" }), 403, "AuthorizationFailed");
    expect((await admin(someone)).status).toBe(200);
  });
});
