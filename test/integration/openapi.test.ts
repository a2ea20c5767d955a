import Ajv2020 from "ajv/dist/2020";
import { routeDefinitions } from "../../src/triggers/routes";
import { startTestHost, type TestHost } from "../support/test-host";

const routes = routeDefinitions();

// GET /openapi.json: generated from the route table and its zod schemas, so it must describe every
// route, and every example in it must validate against the schema it sits beside.
// biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON, walked by path
type Json = Record<string, any>;

let host: TestHost;
let document: Json;
// Formats (date-time, uri) are zod's to check; here the structure is what is compared.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

beforeAll(async () => {
  host = await startTestHost();
  const response = await host.request("/openapi.json", { key: null });
  expect(response.status).toBe(200);
  document = (await response.json()) as Json;
});
afterAll(() => host.stop());

function operationOf(route: (typeof routes)[number], method: string): Json {
  return document.paths[`/${route.route}`]?.[method.toLowerCase()];
}

function validate(schema: Json, value: unknown): string | undefined {
  const withComponents = { ...schema, $defs: { ...(schema.$defs ?? {}) } };
  const check = ajv.compile(withComponents);
  return check(value) ? undefined : ajv.errorsText(check.errors);
}

it("is OpenAPI 3.1, served without a key, naming the server it was fetched from", () => {
  expect(document.openapi).toBe("3.1.0");
  expect(document.servers).toEqual([{ url: host.baseUrl }]);
  // This host runs AUTH_MODE=keys: its schemes are the Functions keys only (test/integration/
  // openapi-auth-modes.test.ts serves the entra document beside it).
  expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
    "functionKey",
    "functionKeyInQuery",
    "masterKey",
    "masterKeyInQuery",
  ]);
  expect(document.components.securitySchemes.functionKey).toMatchObject({
    type: "apiKey",
    in: "header",
    name: "x-functions-key",
  });
  expect(document.components.securitySchemes.masterKey).toMatchObject({
    type: "apiKey",
    in: "header",
    name: "x-functions-key",
    description: expect.stringMatching(/master key/),
  });
  expect(document.info.license).toEqual({ name: "MIT", url: "https://opensource.org/license/mit" });
  for (const tag of document.tags) expect(tag.description).toEqual(expect.any(String));
});

it("says what a method a path does not list answers, and that repeated JSON names are refused", () => {
  expect(document.info.description).toMatch(/405 MethodNotAllowed, with an Allow header/);
  const put = document.paths["/authenticationProfiles/{authenticationProfileName}"].put;
  expect(put.responses["400"].description).toMatch(/repeats a member name/);
});

it("describes every route of the table, with its method, parameters and auth level", () => {
  for (const route of routes) {
    for (const method of route.methods) {
      const operation = operationOf(route, method);
      expect(operation).toBeDefined();
      expect(operation.operationId).toBe(route.name);
      expect(operation["x-auth-level"]).toBe(route.authLevel);
      const pathParameters = [...route.route.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const documented = operation.parameters
        .filter((parameter: Json) => parameter.in === "path")
        .map((parameter: Json) => parameter.name);
      expect(documented.sort()).toEqual(pathParameters.sort());
      expect(operation.security).toEqual(
        {
          anonymous: [],
          function: [{ functionKey: [] }, { functionKeyInQuery: [] }],
          admin: [{ masterKey: [] }, { masterKeyInQuery: [] }],
        }[route.authLevel],
      );
      expect(operation.description).toEqual(expect.any(String));
      expect(Object.keys(operation.responses).some((status) => status.startsWith("4"))).toBe(true);
    }
  }
  const documentedOperations = Object.values(document.paths).flatMap((item) =>
    Object.keys(item as Json),
  ).length;
  expect(documentedOperations).toBe(routes.reduce((sum, route) => sum + route.methods.length, 0));
});

it("gives every route with a caller the host's 401 (under keys no role is judged: no 403), and every route its error shape", () => {
  for (const route of routes.filter((candidate) => candidate.authLevel !== "anonymous")) {
    const operation = operationOf(route, route.methods[0] as string);
    expect(operation.responses["401"].description).toMatch(/Functions host/);
    expect(operation.responses["403"]).toBeUndefined();
    expect(operation["x-required-action"]).toBeUndefined();
    for (const status of route.doc.errors.filter((code) => code !== 403))
      expect(operation.responses[String(status)]).toBeDefined();
  }
});

it("has examples that validate against the documented schemas and the handlers' own zod schemas", () => {
  let checked = 0;
  for (const route of routes) {
    const doc = route.doc;
    const operation = operationOf(route, route.methods[0] as string);
    if (doc.requestBody) {
      for (const media of Object.values(operation.requestBody.content) as Json[]) {
        expect(validate(media.schema, media.example)).toBeUndefined();
        checked++;
      }
      expect(doc.requestBody.schema.safeParse(doc.requestBody.example).success).toBe(true);
    }
    for (const response of doc.responses) {
      const media = operation.responses[String(response.status)].content?.["application/json"];
      if (response.example === undefined) continue;
      expect(validate(media.schema, media.example)).toBeUndefined();
      expect(response.schema?.safeParse(response.example).success).toBe(true);
      checked++;
    }
  }
  expect(checked).toBeGreaterThan(15);
});

it("describes what the service really answers: a created profile and an error body", async () => {
  const route = routes.find((candidate) => candidate.name === "authenticationProfiles-put");
  const created = await host.request("/authenticationProfiles/described", {
    method: "PUT",
    body: JSON.stringify({ authenticationProfileContent: "{}" }),
  });
  const schema = operationOf(route as (typeof routes)[number], "PUT").responses["201"].content[
    "application/json"
  ].schema;
  expect(validate(schema, await created.json())).toBeUndefined();
  const missing = await host.request("/authenticationProfiles/not-there");
  expect(validate(document.components.schemas.ErrorResponse, await missing.json())).toBeUndefined();
  // A validator that accepts anything would pass the above: it must also refuse.
  expect(validate(schema, { id: 1 })).toBeDefined();
});

function allOperations(): [string, string, Json][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Json).map(
      ([method, operation]) => [path, method, operation] as [string, string, Json],
    ),
  );
}

it("declares ETag only on single-resource 200/201 and 304, and conditional headers only where read", () => {
  for (const [path, method, operation] of allOperations()) {
    const single = operation.operationId.endsWith("-get") || /-(put|patch)$/.test(operation.operationId);
    for (const [status, response] of Object.entries(operation.responses) as [string, Json][]) {
      const etag = response.headers?.ETag !== undefined;
      expect([path, method, status, etag]).toEqual([
        path,
        method,
        status,
        single && ["200", "201", "304"].includes(status),
      ]);
    }
    const headers = operation.parameters
      .filter((parameter: Json) => parameter.in === "header" && parameter.name.startsWith("If-"))
      .map((parameter: Json) => parameter.name);
    const expected: Record<string, string[]> = {
      get: ["If-Match", "If-None-Match"],
      put: ["If-Match", "If-None-Match"],
      patch: ["If-Match"],
      delete: ["If-Match"],
    };
    const resourceOperation = /-(get|put|patch|delete)$/.exec(operation.operationId)?.[1];
    expect([operation.operationId, headers]).toEqual([
      operation.operationId,
      resourceOperation ? expected[resourceOperation] : [],
    ]);
  }
  expect(document.paths["/health"].get.responses["503"].headers["Retry-After"]).toBeDefined();
});

it("is as strict as the server on request bodies and parameters", () => {
  const put = document.paths["/authenticationProfiles/{authenticationProfileName}"].put;
  const profile = put.requestBody.content["application/json"].schema;
  expect(profile.properties.id.readOnly).toBe(true);
  expect(profile.properties.authenticationProfileContent.contentMediaType).toBe("application/json");
  const endpointPut = Object.entries(document.paths).find(([path]) =>
    path.endsWith("/endpoints/{endpointName}"),
  );
  const kinds = (endpointPut as [string, Json])[1].put.requestBody.content["application/json"].schema;
  const [endpoint, identityBased] = ["KeyBased", "IdentityBased"].map((kind) =>
    kinds.anyOf.find((member: Json) => member.properties.authenticationType.const === kind),
  ) as [Json, Json];
  for (const member of [endpoint, identityBased])
    for (const field of ["id", "name", "twinsInstanceId"])
      expect(member.properties[field].readOnly).toBe(true);
  // The two kinds, as the server tells them apart: a KeyBased body need not name its kind; a mix is refused.
  const keyBody = { queuePrimaryConnectionString: "x", queueSecondaryConnectionString: "y" };
  const identityBody = {
    authenticationType: "IdentityBased",
    endpointUri: "sb://contoso.servicebus.windows.net/",
    entityPath: "t",
    deadLetterUri: "https://contoso.blob.core.windows.net/dead",
  };
  expect(validate(kinds, identityBody)).toBeUndefined();
  for (const bad of [
    { ...keyBody, endpointUri: identityBody.endpointUri },
    { ...identityBody, queuePrimaryConnectionString: "x" },
    { ...identityBody, deadLetterUri: `${identityBody.deadLetterUri}?sv=1&sig=x` },
    { ...identityBody, authenticationType: "Other" },
  ]) {
    expect(validate(kinds, bad)).toBeDefined();
  }
  const connection = endpoint.properties.queuePrimaryConnectionString;
  const good =
    "SharedAccessKeyName=send;Endpoint=sb://contoso.servicebus.windows.net/;SharedAccessKey=a2V5;EntityPath=t;";
  expect(validate(connection, good)).toBeUndefined();
  for (const bad of [
    "Endpoint=sb://contoso.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=a2V5",
    `${good};EntityPath=u`,
    good.replace("a2V5", "***"),
    good.replace("SharedAccessKey=", "sharedaccesskey="),
    `${good}Extra=1`,
  ]) {
    expect(validate(connection, bad)).toBeDefined();
  }
  const list = Object.values(document.paths)
    .map((item) => (item as Json).get)
    .find((operation) => operation?.operationId === "authenticationProfiles-list");
  const skipToken = list.parameters.find((parameter: Json) => parameter.name === "$skipToken");
  expect(validate(skipToken.schema, "eyJ0b2tlbiI6MX0")).toBeUndefined();
  expect(validate(skipToken.schema, "not a token")).toBeDefined();
  const ifMatch = put.parameters.find((parameter: Json) => parameter.name === "If-Match");
  for (const tag of ['"abc"', 'W/"abc", "def"', "*"]) expect(validate(ifMatch.schema, tag)).toBeUndefined();
});

it("states the rules the server enforces on IdentityBased URIs, PATCH bodies mixing kinds and event payloads", () => {
  const endpointPath = Object.keys(document.paths).find((path) => path.endsWith("/endpoints/{endpointName}"));
  const item = document.paths[endpointPath as string];
  const identityBased = item.put.requestBody.content["application/json"].schema.anyOf.find(
    (member: Json) => member.properties.authenticationType.const === "IdentityBased",
  );
  const identityBody = {
    authenticationType: "IdentityBased",
    endpointUri: "sb://contoso.servicebus.windows.net/",
    entityPath: "t",
    deadLetterUri: "https://contoso.blob.core.windows.net/dead",
  };
  for (const good of [
    identityBody,
    { ...identityBody, endpointUri: "sb://127.0.0.1:5672/" },
    { ...identityBody, deadLetterUri: "http://127.0.0.1:10000/devstoreaccount1/dead" },
  ]) {
    expect(validate(identityBased, good)).toBeUndefined();
  }
  // A plain host: no user information, port (but a loopback one's), IP address, query or fragment;
  // https for a cloud host.
  for (const endpointUri of [
    "sb://user@contoso.servicebus.windows.net/",
    "sb://contoso.servicebus.windows.net:5671/",
    "sb://10.0.0.1/",
    "sb://contoso.servicebus.windows.net/?x=1",
  ]) {
    expect(validate(identityBased, { ...identityBody, endpointUri })).toBeDefined();
  }
  for (const deadLetterUri of [
    "http://contoso.blob.core.windows.net/dead",
    "https://contoso.blob.core.windows.net:443/dead",
    "https://user:password@contoso.blob.core.windows.net/dead",
    "https://10.1.2.3/devstoreaccount1/dead",
    "https://contoso.blob.core.windows.net/dead#f",
  ]) {
    expect(validate(identityBased, { ...identityBody, deadLetterUri })).toBeDefined();
  }

  // A PATCH never mixes the kinds, whatever the endpoint's kind (the server refuses it either way).
  const patch = item.patch.requestBody.content["application/merge-patch+json"].schema;
  const connection =
    "Endpoint=sb://contoso.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=a2V5;EntityPath=t";
  for (const good of [
    {},
    { queuePrimaryConnectionString: connection, deadLetterStorageSecret: null },
    { authenticationType: "IdentityBased", entityPath: "u", deadLetterUri: null },
  ]) {
    expect(validate(patch, good)).toBeUndefined();
  }
  for (const mixed of [
    { queuePrimaryConnectionString: connection, entityPath: "u" },
    { endpointUri: identityBody.endpointUri, deadLetterStorageSecret: null },
    { authenticationType: "KeyBased", entityPath: "u" },
    { authenticationType: "IdentityBased", queueSecondaryConnectionString: connection },
  ]) {
    expect(validate(patch, mixed)).toBeDefined();
  }

  // An event carries data or data_base64, never both (CloudEvents JSON format).
  const ingest = Object.values(document.paths)
    .map((operations) => (operations as Json).post)
    .find((operation) => operation?.operationId === "twinEvents-ingest");
  const events = ingest.requestBody.content["application/cloudevents-batch+json"].schema;
  const event = { id: "e", source: "/s", specversion: "1.0", type: "t" };
  for (const good of [{ ...event, data: { v: 1 } }, { ...event, data_base64: "AAE=" }, event]) {
    expect(validate(events, good)).toBeUndefined();
    expect(validate(events, [good])).toBeUndefined();
  }
  for (const data of [{ v: 1 }, null]) {
    const both = { ...event, data, data_base64: "AAE=" };
    expect(validate(events, both)).toBeDefined();
    expect(validate(events, [{ ...event, data }, both])).toBeDefined();
  }
});

it("sends ETag where it declares it, and not on lists", async () => {
  await host.request("/authenticationProfiles/etagged", {
    method: "PUT",
    body: JSON.stringify({ authenticationProfileContent: "{}" }),
  });
  const one = await host.request("/authenticationProfiles/etagged");
  expect(one.headers.get("etag")).toMatch(/^"[^"]*"$/);
  const list = await host.request("/authenticationProfiles");
  expect(list.status).toBe(200);
  expect(list.headers.get("etag")).toBeNull();
});
