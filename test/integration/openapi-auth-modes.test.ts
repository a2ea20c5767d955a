import { randomUUID } from "node:crypto";
import Ajv2020 from "ajv/dist/2020";
import { expectArmError } from "../support/arm";
import { ADMIN, adminEntraSettings, asPrincipal } from "../support/entra-host";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer, type TestIssuer } from "../support/test-issuer";

// The API description as outside tools read it, served by real hosts in both AUTH_MODEs: only the
// schemes the instance takes, a role-assignment body documented as the server judges it, resource
// group names the document and the server agree on, x-ms-client-request-id echoed, and If-Match
// evaluated on GET (RFC 9110 §13.1.1).

// biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON, walked by path
type Json = Record<string, any>;

const SUBSCRIPTION = "/subscriptions/5d1c7a52-0000-4000-8000-0000000000a1";
const ASSIGNMENT =
  "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}";
const ENDPOINTS =
  "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints";

let issuer: TestIssuer;
let entra: TestHost;
let keys: TestHost;
let entraDocument: Json;
let keysDocument: Json;
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

async function documentOf(host: TestHost): Promise<Json> {
  const response = await host.request("/openapi.json", { key: null });
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  [entra, keys] = await Promise.all([startTestHost(adminEntraSettings(issuer)), startTestHost()]);
  [entraDocument, keysDocument] = await Promise.all([documentOf(entra), documentOf(keys)]);
});
afterAll(async () => {
  await Promise.all([entra?.stop(), keys?.stop()]);
  await issuer?.close();
});

function operations(document: Json): Json[] {
  return Object.values(document.paths).flatMap((item) => Object.values(item as Json) as Json[]);
}

/** Where a client generated from the document would put its credential for each operation. */
function credentialPlaces(document: Json): Set<string> {
  const places = new Set<string>();
  for (const operation of operations(document)) {
    for (const requirement of operation.security as Json[]) {
      for (const name of Object.keys(requirement)) {
        const scheme = document.components.securitySchemes[name];
        expect(scheme).toBeDefined();
        places.add(scheme.type === "apiKey" ? `${scheme.in}:${scheme.name}` : scheme.type);
      }
    }
  }
  return places;
}

describe("security schemes: only those the instance takes", () => {
  it("under AUTH_MODE=entra: the bearer scheme alone, never a key, never the query", () => {
    expect(Object.keys(entraDocument.components.securitySchemes)).toEqual(["entraId"]);
    expect(entraDocument.components.securitySchemes.entraId).toMatchObject({
      type: "openIdConnect",
      openIdConnectUrl: `${entra.config.AUTH_AUTHORITY?.replace(/\/+$/, "")}/.well-known/openid-configuration`,
    });
    expect([...credentialPlaces(entraDocument)]).toEqual(["openIdConnect"]);
    for (const operation of operations(entraDocument)) {
      expect(operation.description).not.toMatch(/x-functions-key|code query parameter|AUTH_MODE=keys/);
      if (operation["x-auth-level"] !== "anonymous") {
        expect(operation.security).toEqual([{ entraId: [] }]);
        expect(operation.responses["401"].headers["WWW-Authenticate"]).toBeDefined();
        expect(operation.responses["403"]).toBeDefined();
      }
    }
    expect(entraDocument.info.description).toMatch(/takes no Functions key/);
  });

  it("under AUTH_MODE=keys: the Functions keys alone, in the header first", () => {
    expect(Object.keys(keysDocument.components.securitySchemes).sort()).toEqual([
      "functionKey",
      "functionKeyInQuery",
      "masterKey",
      "masterKeyInQuery",
    ]);
    expect([...credentialPlaces(keysDocument)].sort()).toEqual(["header:x-functions-key", "query:code"]);
    for (const operation of operations(keysDocument)) {
      expect(operation.description).not.toMatch(/bearer|AUTH_MODE=entra/i);
      if (operation["x-auth-level"] !== "anonymous") {
        expect(Object.keys(operation.security[0])[0]).toMatch(/^(functionKey|masterKey)$/);
      }
    }
    expect(keysDocument.info.description).toMatch(/takes no bearer token/);
    expect(JSON.stringify(keysDocument)).not.toMatch(/openIdConnect|WwwAuthenticate/);
  });

  it("describes what each instance answers: a keyed request to the entra instance is refused, a token's scheme is what it takes", async () => {
    // What a client generated from the entra document sends: the token in Authorization, and nothing in ?code=.
    const admin = asPrincipal(entra, issuer, { name: ADMIN });
    expect((await admin("/authenticationProfiles")).status).toBe(200);
    await expectArmError(await entra.request("/authenticationProfiles"), 401, "AuthenticationFailed");
    // And from the keys document: the key in x-functions-key.
    expect((await keys.request("/authenticationProfiles")).status).toBe(200);
  });
});

describe("role-assignment PUT bodies: documented as the server judges them", () => {
  const scope = `${SUBSCRIPTION}/resourceGroups/doc-roles`;
  const principal = () => randomUUID();
  const cases: [string, () => Json][] = [
    ["principalId only", () => ({ principalId: principal() })],
    ["principalId and principalType only", () => ({ principalId: principal(), principalType: "User" })],
    ...["Owner", "Contributor", "Reader", "Twin Events Sender", "Assessment Writer"].map(
      (name) =>
        [`roleDefinitionName ${name}`, () => ({ principalId: principal(), roleDefinitionName: name })] as [
          string,
          () => Json,
        ],
    ),
    ["an unknown roleDefinitionName", () => ({ principalId: principal(), roleDefinitionName: "Superuser" })],
    [
      "roleDefinitionId in ARM form",
      () => ({
        principalId: principal(),
        roleDefinitionId:
          "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
      }),
    ],
    [
      "roleDefinitionId at a subscription",
      () => ({
        principalId: principal(),
        roleDefinitionId: `${SUBSCRIPTION}/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7`,
      }),
    ],
    [
      "roleDefinitionId as a GUID",
      () => ({ principalId: principal(), roleDefinitionId: "8E3AF657-A8FF-443C-A75C-2FE8C4BCB635" }),
    ],
    ["an unknown roleDefinitionId", () => ({ principalId: principal(), roleDefinitionId: randomUUID() })],
    [
      "both, naming one role",
      () => ({
        principalId: principal(),
        roleDefinitionName: "Reader",
        roleDefinitionId: "acdd72a7-3385-48ef-bd42-f606fba81ae7",
      }),
    ],
  ];

  it.each(cases)("%s: valid by the document exactly when the server takes it", async (_name, body) => {
    const operation = entraDocument.paths[ASSIGNMENT].put;
    const schema = operation.requestBody.content["application/json"].schema;
    const value = body();
    const documented = ajv.validate(schema, value);
    const response = await asPrincipal(entra, issuer, { name: ADMIN })(
      `${scope}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`,
      { method: "PUT", body: JSON.stringify(value) },
    );
    expect([response.status === 201, response.status]).toEqual([documented, documented ? 201 : 400]);
    // The keys instance documents the same body.
    expect(keysDocument.paths[ASSIGNMENT].put.requestBody).toEqual(operation.requestBody);
  });

  it("lists the six role names the server knows", () => {
    const schema = entraDocument.paths[ASSIGNMENT].put.requestBody.content["application/json"].schema;
    expect(schema.properties.roleDefinitionName.enum).toEqual([
      "Owner",
      "Contributor",
      "Reader",
      "Managed Identity Operator",
      "Twin Events Sender",
      "Assessment Writer",
    ]);
    expect(schema.anyOf).toEqual([{ required: ["roleDefinitionId"] }, { required: ["roleDefinitionName"] }]);
  });
});

describe("resourceGroupName: the served pattern and the server agree", () => {
  const pattern = () =>
    new RegExp(
      keysDocument.paths[ENDPOINTS].get.parameters.find(
        (parameter: Json) => parameter.name === "resourceGroupName",
      ).schema.pattern,
      "u",
    );

  it.each(["rg§", "rg±", "rg\u00ad", "rg\u200b", "rg🙂"])(
    "refuses %j in the document and over the wire (400)",
    async (name) => {
      expect(pattern().test(name)).toBe(false);
      const response = await keys.request(
        `${SUBSCRIPTION}/resourceGroups/${encodeURIComponent(name)}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant/endpoints`,
      );
      await expectArmError(response, 400, "InvalidRequestContent", "resourceGroupName");
    },
  );

  it.each(["Grüße", "資源", "rg-(1)_x.y"])(
    "takes %j in the document and over the wire (200)",
    async (name) => {
      expect(pattern().test(name)).toBe(true);
      const response = await keys.request(
        `${SUBSCRIPTION}/resourceGroups/${encodeURIComponent(name)}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant/endpoints`,
      );
      expect(response.status).toBe(200);
    },
  );
});

describe("x-ms-client-request-id", () => {
  const id = "9C4D50EE-2D56-4CD3-8152-34347DC9F2B0";

  it("is echoed as sent, on a success, a 404 and a 401 from the service", async () => {
    const ok = await keys.request("/authenticationProfiles", { headers: { "x-ms-client-request-id": id } });
    expect([ok.status, ok.headers.get("x-ms-client-request-id")]).toEqual([200, id]);
    const missing = await keys.request("/authenticationProfiles/none-here", {
      headers: { "x-ms-client-request-id": "client.42:a_b-c" },
    });
    expect([missing.status, missing.headers.get("x-ms-client-request-id")]).toEqual([404, "client.42:a_b-c"]);
    const refused = await entra.request("/authenticationProfiles", {
      key: null,
      headers: { "x-ms-client-request-id": id },
    });
    expect([refused.status, refused.headers.get("x-ms-client-request-id")]).toEqual([401, id]);
    // Beside it, the service's own ids, as before.
    expect(ok.headers.get("x-ms-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok.headers.get("x-ms-correlation-request-id")).toBeTruthy();
  });

  it.each([
    ["absent", undefined],
    ["too long", "a".repeat(129)],
    ["holding a blank", "a b"],
    ["holding markup", "<script>"],
    ["non-ASCII", "idé"],
  ])("is not echoed when %s", async (_what, value) => {
    const response = await keys.request("/authenticationProfiles", {
      headers: value === undefined ? {} : { "x-ms-client-request-id": value },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ms-client-request-id")).toBeNull();
  });

  it("is documented on requests and responses", () => {
    const get = keysDocument.paths["/authenticationProfiles/{authenticationProfileName}"].get;
    expect(get.parameters.map((parameter: Json) => parameter.name)).toContain("x-ms-client-request-id");
    expect(get.responses["200"].headers["x-ms-client-request-id"]).toEqual({
      $ref: "#/components/headers/ClientRequestId",
    });
    expect(keysDocument.components.headers.ClientRequestId.schema.pattern).toBe("^[A-Za-z0-9._:-]{1,128}$");
  });
});

describe("If-Match on GET (RFC 9110 §13.1.1)", () => {
  const profile = "/authenticationProfiles/if-match-get";
  let etag: string;
  const get = (headers: Record<string, string>, path = profile) => keys.request(path, { headers });

  beforeAll(async () => {
    const created = await keys.request(profile, {
      method: "PUT",
      body: JSON.stringify({ authenticationProfileContent: "{}" }),
    });
    expect(created.status).toBe(201);
    etag = created.headers.get("etag") as string;
  });

  it("answers 200 with the resource when If-Match lists its ETag, or is *", async () => {
    for (const value of [etag, `"other", ${etag}`, "*"]) {
      const response = await get({ "if-match": value });
      expect([value, response.status, response.headers.get("etag")]).toEqual([value, 200, etag]);
      expect(await response.json()).toMatchObject({ authenticationProfileName: "if-match-get" });
    }
  });

  it("answers 412 PreconditionFailed when If-Match does not list it (a weak tag never matches)", async () => {
    for (const value of ['"stale"', `W/${etag}`]) {
      await expectArmError(await get({ "if-match": value }), 412, "PreconditionFailed", "If-Match");
    }
  });

  it("evaluates If-Match before If-None-Match", async () => {
    await expectArmError(
      await get({ "if-match": '"stale"', "if-none-match": etag }),
      412,
      "PreconditionFailed",
      "If-Match",
    );
    expect((await get({ "if-match": etag, "if-none-match": etag })).status).toBe(304);
  });

  it("answers 404 for a resource that does not exist (preconditions are not evaluated, RFC 9110 §13.2.1)", async () => {
    await expectArmError(
      await get({ "if-match": "*" }, "/authenticationProfiles/if-match-absent"),
      404,
      "ResourceNotFound",
    );
  });

  it("refuses a malformed If-Match with 400, before reading the resource", async () => {
    for (const path of [profile, "/authenticationProfiles/if-match-absent"]) {
      await expectArmError(await get({ "if-match": "nope" }, path), 400, "InvalidRequestContent", "If-Match");
    }
  });

  it("is documented on GET with its 412", () => {
    const operation = keysDocument.paths["/authenticationProfiles/{authenticationProfileName}"].get;
    const ifMatch = operation.parameters.find((parameter: Json) => parameter.name === "If-Match");
    expect(ifMatch.description).toMatch(/412/);
    expect(operation.responses["412"]).toBeDefined();
  });

  it("holds on every kind of resource's GET: a role assignment under entra", async () => {
    const admin = asPrincipal(entra, issuer, { name: ADMIN });
    const at = `${SUBSCRIPTION}/resourceGroups/doc-etag/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
    const created = await admin(at, {
      method: "PUT",
      body: JSON.stringify({ principalId: randomUUID(), roleDefinitionName: "Reader" }),
    });
    expect(created.status).toBe(201);
    const current = created.headers.get("etag") as string;
    expect((await admin(at, { headers: { "if-match": current } })).status).toBe(200);
    await expectArmError(await admin(at, { headers: { "if-match": '"stale"' } }), 412, "PreconditionFailed");
  });
});
