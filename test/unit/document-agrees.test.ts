import Ajv2020 from "ajv/dist/2020";
import fc from "fast-check";
import { roleById, roleByName } from "../../src/auth/role-definitions";
import { resourceGroupNameSchema } from "../../src/common/arm-path-schema";
import { configSchema } from "../../src/config";
import { readEndpoint } from "../../src/endpoints/connection-string";
import { parseDeadLetterSecret, parseDeadLetterUri } from "../../src/endpoints/dead-letter-secret";
import {
  deadLetterHostProblems,
  type EndpointAllowList,
  serviceBusHostProblems,
} from "../../src/endpoints/endpoint-allow-list";
import { checkPatchKind } from "../../src/endpoints/endpoint-kinds";
import type { EndpointPatch } from "../../src/endpoints/endpoint-schema";
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

/**
 * The allow-list of the deployment most open to `hostname`: loopback allowed, and the host's own
 * parent domain as its one suffix, when the settings take that suffix (config.ts). What no such
 * deployment takes, none does; what one takes, the document must admit.
 */
function deploymentOpenTo(hostname: string): EndpointAllowList {
  const suffix = hostname.includes(".") ? hostname.slice(hostname.indexOf(".")) : "";
  const taken = configSchema.shape.SERVICEBUS_HOST_SUFFIXES.safeParse(suffix).success;
  const suffixes = taken ? [suffix] : [];
  return { serviceBusSuffixes: suffixes, storageSuffixes: suffixes, allowLoopback: true };
}

/** An identity-based endpoint's URIs, as a write reads them (identity-endpoint.ts), in some deployment. */
function someDeploymentTakesEndpointUri(text: string): boolean {
  const read = readEndpoint(text);
  return (
    read.ok && serviceBusHostProblems(read.authority, deploymentOpenTo(read.authority.hostname)).length === 0
  );
}

function someDeploymentTakesDeadLetterUri(text: string): boolean {
  const parsed = parseDeadLetterUri(text);
  if (!parsed.ok) return false;
  const allowList = deploymentOpenTo(parsed.value.authority.hostname);
  return deadLetterHostProblems(parsed.value, allowList).length === 0;
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
    reads: someDeploymentTakesDeadLetterUri,
  },
  {
    field: "endpointUri",
    kind: "IdentityBased",
    url: (host: string) => `sb://${host}/`,
    reads: someDeploymentTakesEndpointUri,
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

/** Hosts near the rules: names of two to four labels, loopback spellings, IP addresses, ports. */
const label = fc.oneof(
  fc.constantFrom(
    "a",
    "ab",
    "Ab",
    "servicebus",
    "net",
    "cn",
    "1a",
    "a1",
    "1",
    "123",
    "0x1f",
    "a-b",
    "-a",
    "a-",
  ),
  fc.constantFrom("xn--bcher-kva", "a".repeat(63), "a".repeat(64)),
  fc.string({ unit: fc.constantFrom(..."aZ09-"), minLength: 0, maxLength: 4 }),
);
const port = fc.constantFrom("", "", ":", ":0", ":01", ":1", ":443", ":10000", ":65535", ":65536", ":99999");
const nearHost = fc.oneof(
  fc
    .tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.constantFrom("", "", "."), port)
    .map(([labels, dot, suffix]) => `${labels.join(".")}${dot}${suffix}`),
  fc
    .tuple(
      fc.constantFrom(
        "localhost",
        "LocalHost",
        "127.0.0.1",
        "127.255.255.255",
        "127.256.0.1",
        "127.0.0.01",
        "127.1",
        "0x7f.0.0.1",
        "10.0.0.1",
        "128.0.0.1",
        "[::1]",
        "[0:0:0:0:0:0:0:1]",
        "[::2]",
        "[::ffff:127.0.0.1]",
        "user@localhost",
        "localhost.",
      ),
      port,
    )
    .map(([host, suffix]) => host + suffix),
  fc.string({ unit: fc.constantFrom(..."abz09.-:[]"), minLength: 1, maxLength: 12 }),
);

describe("IdentityBased URIs: the document's patterns are what some deployment takes", () => {
  // Some deployment: the suffixes are settings the document cannot know (SERVICEBUS_HOST_SUFFIXES,
  // STORAGE_HOST_SUFFIXES, ALLOW_LOOPBACK_ENDPOINTS); everything else of the host, the port, the
  // scheme and the query, it states exactly.
  const identityBased = endpointKind("IdentityBased").properties;
  const patch = document.paths[ENDPOINT].patch.requestBody.content["application/json"].schema.properties;
  const documented = (field: string, value: string) =>
    admits(identityBased[field], value) &&
    (patch[field].anyOf ?? [patch[field]]).some(
      (member: Json) => member.type === "string" && admits(member, value),
    );

  it.each([
    "sb://contoso.servicebus.windows.net/",
    "sb://Contoso.ServiceBus.Windows.Net",
    "sb://localhost/",
    "sb://127.0.0.1:5672/",
    "sb://[::1]:5671/",
  ])("endpointUri %s: taken", (uri) => {
    expect([documented("endpointUri", uri), someDeploymentTakesEndpointUri(uri)]).toEqual([true, true]);
  });

  it.each([
    "sb://user@contoso.servicebus.windows.net/",
    "sb://contoso.servicebus.windows.net:5671/",
    "sb://10.0.0.1/",
    "sb://contoso/",
    "sb://servicebus.net/",
    "sb://contoso.servicebus.windows.net/topic",
    "sb://contoso.servicebus.windows.net/?x=1",
    "sb://contoso.servicebus.windows.net/#f",
    "sb://localhost:0/",
    "sb://127.0.0.1:65536/",
    "sb://[0:0:0:0:0:0:0:1]/",
  ])("endpointUri %s: refused", (uri) => {
    expect([documented("endpointUri", uri), someDeploymentTakesEndpointUri(uri)]).toEqual([false, false]);
  });

  it.each([
    "https://contoso.blob.core.windows.net/dead",
    "http://127.0.0.1:10000/devstoreaccount1/dead",
    "https://localhost/devstoreaccount1/dead",
  ])("deadLetterUri %s: taken", (uri) => {
    expect([documented("deadLetterUri", uri), someDeploymentTakesDeadLetterUri(uri)]).toEqual([true, true]);
  });

  it.each([
    "http://contoso.blob.core.windows.net/dead",
    "https://contoso.blob.core.windows.net:443/dead",
    "https://user:password@contoso.blob.core.windows.net/dead",
    "https://10.1.2.3/devstoreaccount1/dead",
    "https://contoso.blob.core.windows.net/dead?sv=2022-11-02&sig=x",
    "https://contoso.blob.core.windows.net/dead?",
    "https://contoso.blob.core.windows.net/dead#f",
    "ftp://contoso.blob.core.windows.net/dead",
  ])("deadLetterUri %s: refused", (uri) => {
    expect([documented("deadLetterUri", uri), someDeploymentTakesDeadLetterUri(uri)]).toEqual([false, false]);
  });

  it("agree on random hosts for endpointUri", () => {
    fc.assert(
      fc.property(nearHost, (host) => {
        const uri = `sb://${host}/`;
        expect([uri, documented("endpointUri", uri)]).toEqual([uri, someDeploymentTakesEndpointUri(uri)]);
      }),
      { numRuns: 5000 },
    );
  });

  it("agree on random hosts and schemes for deadLetterUri (path-style or not, as the host needs)", () => {
    fc.assert(
      fc.property(nearHost, fc.constantFrom("https", "http"), (host, scheme) => {
        const [plain, pathStyle] = ["", "/devstoreaccount1"].map(
          (account) => `${scheme}://${host}${account}/dead`,
        );
        const server =
          someDeploymentTakesDeadLetterUri(plain as string) ||
          someDeploymentTakesDeadLetterUri(pathStyle as string);
        expect([plain, documented("deadLetterUri", plain as string)]).toEqual([plain, server]);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("QueueEndpoint PATCH bodies: the document refuses a mix of kinds, as the server does", () => {
  const patch = document.paths[ENDPOINT].patch.requestBody.content["application/json"].schema;
  const kindFields = {
    KeyBased: ["queuePrimaryConnectionString", "queueSecondaryConnectionString", "deadLetterStorageSecret"],
    IdentityBased: ["endpointUri", "entityPath", "deadLetterUri", "identity"],
  };
  // The kinds' rule alone, as a validator reads it: the fields' values are their own schemas' to judge.
  const documented = new Ajv2020({ strict: false }).compile({ anyOf: patch.anyOf });

  it("lists each kind with the other kind's fields left out", () => {
    expect(patch.anyOf).toHaveLength(2);
    for (const [kind, other] of [
      ["KeyBased", "IdentityBased"],
      ["IdentityBased", "KeyBased"],
    ] as const) {
      const member = patch.anyOf.find(
        (candidate: Json) => candidate.properties.authenticationType.const === kind,
      );
      for (const field of kindFields[other]) expect(member.properties[field]).toBe(false);
      for (const field of kindFields[kind]) expect(member.properties[field]).toBeUndefined();
    }
  });

  it("admits a body exactly when the server takes it for an endpoint of one kind or the other", () => {
    // Every set of the kinds' fields (null too: it removes, and is refused as the other kind's
    // all the same), with authenticationType absent or either kind.
    const fields = [...kindFields.KeyBased, ...kindFields.IdentityBased];
    for (let set = 0; set < 1 << fields.length; set++) {
      for (const authenticationType of [undefined, "KeyBased", "IdentityBased"]) {
        const body: Record<string, unknown> = authenticationType === undefined ? {} : { authenticationType };
        fields.forEach((field, at) => {
          if (set & (1 << at)) body[field] = at % 2 === 0 ? "x" : null;
        });
        const takenFor = (["KeyBased", "IdentityBased"] as const).filter((kind) => {
          try {
            checkPatchKind(kind, body as EndpointPatch);
            return true;
          } catch {
            return false;
          }
        });
        expect([body, documented(body)]).toEqual([body, takenFor.length > 0]);
      }
    }
    expect(documented({})).toBe(true);
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
