import fc from "fast-check";
import { roleById, roleByName } from "../../src/auth/role-definitions";
import { resourceGroupNameSchema } from "../../src/common/arm-path-schema";
import { readEndpoint } from "../../src/endpoints/connection-string";
import { parseDeadLetterSecret, parseDeadLetterUri } from "../../src/endpoints/dead-letter-secret";
import { parseAuthority } from "../../src/endpoints/host-names";
import { buildOpenApiDocument } from "../../src/http/openapi";
import { routeDefinitions } from "../../src/triggers/routes";

// What the API description admits and what the server admits, compared on random input: an
// OpenAPI-driven tester found the document admitting `rg§`, a soft hyphen, non-ASCII dead-letter
// hosts and role assignments without a role. Patterns are compiled as JSON Schema does (ECMA-262,
// the u flag); lengths count code points, as JSON Schema's minLength and maxLength do.

// biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON, walked by path
type Json = Record<string, any>;

const document = buildOpenApiDocument(routeDefinitions()) as Json;
const ENDPOINT =
  "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints/{endpointName}";
const ASSIGNMENT =
  "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}";

/** A JSON Schema string keyword set, as a validator reads it: pattern (u flag), lengths in code points, enum. */
function admits(schema: Json, value: string): boolean {
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) return false;
  if (schema.maxLength !== undefined && length > schema.maxLength) return false;
  if (schema.enum !== undefined && !schema.enum.includes(value)) return false;
  return schema.pattern === undefined || new RegExp(schema.pattern, "u").test(value);
}

/** Characters a tester tries: every Unicode category near the ASCII range, and some far from it. */
const TRICKY = [
  "§",
  "±",
  "\u00ad",
  "·",
  "×",
  "µ",
  "ª",
  "º",
  "²",
  "½",
  "\u0300",
  "\u200b",
  "\u200d",
  "\u2028",
  "\u00a0",
  "\u3000",
  "\ufeff",
  "\u0660",
  "\u2160",
  "é",
  "ß",
  "İ",
  "ſ",
  "K",
  "資",
  "𝒜",
  "🙂",
  "\ud800",
  "\udc00",
  "\u0000",
  "\u007f",
  "\u0085",
  "\u009f",
  "(",
  ")",
  ".",
  "_",
  "-",
  "%",
  "/",
  "a",
  "Z",
  "0",
];
const trickyChar = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.string({ unit: "grapheme-composite", minLength: 1, maxLength: 1 }),
);

describe("resourceGroupName: the document's pattern is the server's rule", () => {
  const parameter = document.paths[ENDPOINT].get.parameters.find(
    (candidate: Json) => candidate.name === "resourceGroupName",
  );
  const server = (name: string) => resourceGroupNameSchema.safeParse(name).success;

  it.each(["rg§", "rg±", "rg\u00ad", "rg\u200b", "rg·", "rg\u0300", "rg ", "rg🙂", "rg."])(
    "refuses %j, as the server does",
    (name) => {
      expect(admits(parameter.schema, name)).toBe(false);
      expect(server(name)).toBe(false);
    },
  );

  it.each(["rg", "Grüße", "資源", "𝒜rg", "٣٤", "rg-(1)_x.y", "g".repeat(90)])(
    "takes %j, as the server does",
    (name) => {
      expect(admits(parameter.schema, name)).toBe(true);
      expect(server(name)).toBe(true);
    },
  );

  it("agrees with the server on random names of any Unicode characters", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: trickyChar, minLength: 0, maxLength: 6 }),
          fc.string({ unit: "binary", maxLength: 95 }),
          fc.tuple(fc.string({ unit: "grapheme", maxLength: 92 }), trickyChar).map(([a, b]) => a + b),
        ),
        (name) => admits(parameter.schema, name) === server(name),
      ),
      { numRuns: 5000 },
    );
  });
});

/** The PUT body's member for one kind of endpoint (an anyOf: a KeyBased body may leave the kind out). */
function endpointKind(kind: string): Json {
  const put = document.paths[ENDPOINT].put.requestBody.content["application/json"].schema;
  return put.anyOf.find((member: Json) => member.properties.authenticationType.const === kind);
}

describe.each([
  {
    field: "deadLetterStorageSecret",
    kind: "KeyBased",
    url: (host: string) =>
      `https://${host}/dead-letters?sv=2022-11-02&sp=cw&se=2099-01-01&sig=ZXhhbXBsZQ%3D%3D`,
    reads: (text: string) => parseDeadLetterSecret(text).ok,
  },
  {
    field: "deadLetterUri",
    kind: "IdentityBased",
    url: (host: string) => `https://${host}/dead-letters`,
    reads: (text: string) => parseDeadLetterUri(text).ok,
  },
  {
    field: "endpointUri",
    kind: "IdentityBased",
    url: (host: string) => `sb://${host}/`,
    reads: (text: string) => readEndpoint(text).ok,
  },
])("$field: the document admits ASCII hosts only, as the server does", ({ field, kind, url, reads }) => {
  const schema = endpointKind(kind).properties[field];
  const server = (host: string) => reads(url(host));

  it.each([
    "bücher.blob.core.windows.net",
    "xn--bcher-kva.blob.core.windows.net\u00ad",
    "аccount.blob.core.windows.net",
    "a\u200b.blob.core.windows.net",
    "a．blob.core.windows.net",
  ])("refuses %j, as the server does", (host) => {
    expect(admits(schema, url(host))).toBe(false);
    expect(server(host)).toBe(false);
  });

  it("takes what the server takes", () => {
    for (const host of ["contoso.blob.core.windows.net", "127.0.0.1:10000", "[::1]:10000", "localhost"]) {
      expect(admits(schema, url(host))).toBe(true);
    }
  });

  it("never admits a host the server refuses for its characters, and never refuses one it takes", () => {
    const hostChar = fc.oneof(fc.constantFrom(..."abz09.-:[]"), trickyChar);
    fc.assert(
      fc.property(
        // A host: what comes before the path, so none of / ? # \ (which end it) nor @ (user information).
        fc.string({ unit: hostChar, minLength: 1, maxLength: 12 }).filter((host) => !/[/?#\\@]/.test(host)),
        (host) => {
          const documented = admits(schema, url(host));
          // The pattern's host part is the server's PLAIN_AUTHORITY: a host outside its characters fails both.
          if (documented) expect(host).toMatch(/^[A-Za-z0-9.:[\]-]+$/);
          if (server(host)) expect(documented).toBe(true);
          if (!/^[\x21-\x7e]*$/.test(host))
            expect([documented, parseAuthority(host)]).toEqual([false, undefined]);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("role-assignment bodies: the document requires a role, as the server does", () => {
  const body = document.paths[ASSIGNMENT].put.requestBody.content["application/json"].schema;

  it("requires principalId and one of roleDefinitionId or roleDefinitionName", () => {
    expect(body.required).toEqual(["principalId"]);
    expect(body.anyOf).toEqual([{ required: ["roleDefinitionId"] }, { required: ["roleDefinitionName"] }]);
  });

  it("lists the six role names", () => {
    expect(body.properties.roleDefinitionName.enum).toEqual([
      "Owner",
      "Contributor",
      "Reader",
      "Managed Identity Operator",
      "Twin Events Sender",
      "Assessment Writer",
    ]);
    for (const name of body.properties.roleDefinitionName.enum) expect(roleByName(name)?.roleName).toBe(name);
  });

  it("documents exactly the role definition ids the server knows, in any letter case", () => {
    const schema = body.properties.roleDefinitionId;
    const guids = [
      "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
      "b24988ac-6180-42a0-ab88-20f7382dd24c",
      "acdd72a7-3385-48ef-bd42-f606fba81ae7",
      "5b0c3a1e-9d2f-4c6b-8e7a-1f2d3c4b5a69",
      "7c1e2d3f-4a5b-4c6d-9e8f-0a1b2c3d4e5f",
    ];
    const fragments = fc.constantFrom(
      ...guids,
      "/providers/Microsoft.Authorization/roleDefinitions/",
      "/subscriptions/",
      "00000000-0000-0000-0000-000000000000",
      "/",
      "x",
      "K",
      "ſ",
      "İ",
    );
    const anyCase = (text: string) =>
      fc
        .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
        .map((flips) => [...text].map((char, at) => (flips[at] ? char.toUpperCase() : char)).join(""));
    const candidate = fc.oneof(
      fc
        .array(fragments, { maxLength: 5 })
        .map((parts) => parts.join(""))
        .chain(anyCase),
      fc
        .tuple(fc.constantFrom("", "/subscriptions/s1"), fc.constantFrom(...guids))
        .map(([prefix, guid]) => `${prefix}/providers/Microsoft.Authorization/roleDefinitions/${guid}`)
        .chain(anyCase),
      fc.string({ unit: trickyChar, maxLength: 8 }),
    );
    fc.assert(
      fc.property(candidate, (id) => admits(schema, id) === (roleById(id) !== undefined)),
      { numRuns: 3000 },
    );
  });
});
