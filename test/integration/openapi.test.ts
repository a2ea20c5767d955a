import Ajv2020 from "ajv/dist/2020";
import { routes } from "../../src/triggers/routes";
import { startTestHost, type TestHost } from "../support/test-host";

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
  expect(document.components.securitySchemes.functionKey).toEqual({
    type: "apiKey",
    in: "header",
    name: "x-functions-key",
  });
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
        route.authLevel === "anonymous" ? [] : expect.arrayContaining([{ functionKey: [] }]),
      );
    }
  }
  const documentedOperations = Object.values(document.paths).flatMap((item) =>
    Object.keys(item as Json),
  ).length;
  expect(documentedOperations).toBe(routes.reduce((sum, route) => sum + route.methods.length, 0));
});

it("gives every keyed route its 401 and every route its error shape", () => {
  for (const route of routes.filter((candidate) => candidate.authLevel !== "anonymous")) {
    const operation = operationOf(route, route.methods[0] as string);
    expect(operation.responses["401"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ErrorResponse",
    });
    for (const status of route.doc.errors) expect(operation.responses[String(status)]).toBeDefined();
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
