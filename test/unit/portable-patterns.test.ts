import { assessmentPathSchema } from "../../src/assessments/assessment-path";
import { RESOURCE_GROUP_NAME_PATTERN, resourceGroupNameSchema } from "../../src/common/arm-path-schema";
import { endpointNameSchema, instanceNameSchema } from "../../src/endpoints/endpoint-path";
import { buildOpenApiDocument } from "../../src/http/openapi";
import { routeDefinitions } from "../../src/triggers/routes";

/** Every `pattern` of the API description. */
function documentPatterns(): string[] {
  const patterns = new Set<string>();
  JSON.stringify(buildOpenApiDocument(routeDefinitions()), (key, value: unknown) => {
    if (key === "pattern" && typeof value === "string") patterns.add(value);
    return value;
  });
  return [...patterns];
}

// The API description's patterns are ECMA-262 with the u flag, as JSON Schema 2020-12 reads them
// (§6.4), and otherwise keep to what every engine a client or tester may use understands (Python's
// re, RE2): no lookarounds or back-references. The one \p{…} class is the resource group name's
// (letters and digits of any script), which no pattern without it can state exactly; the others have none.
describe("the API description's patterns", () => {
  it.each(documentPatterns())("%s is portable", (pattern) => {
    expect(pattern).not.toMatch(/\(\?<?[=!]|\\[1-9]|\\k</);
    if (pattern !== RESOURCE_GROUP_NAME_PATTERN) expect(pattern).not.toMatch(/\\p\{|\\P\{/);
    expect(() => new RegExp(pattern)).not.toThrow();
    expect(() => new RegExp(pattern, "u")).not.toThrow();
  });
});

describe("resource group names: the document's pattern and the server's rule", () => {
  const documented = new RegExp(RESOURCE_GROUP_NAME_PATTERN, "u");
  const server = (name: string) => resourceGroupNameSchema.safeParse(name).success;

  it("agree on every ASCII character, in the middle and at the end of a name", () => {
    for (let code = 0; code < 0x80; code++) {
      const char = String.fromCharCode(code);
      for (const name of [char, `a${char}b`, `ab${char}`, `${char}ab`]) {
        expect([name, documented.test(name)]).toEqual([name, server(name)]);
      }
    }
  });

  it("agree on lengths", () => {
    for (const length of [0, 1, 89, 90, 91]) {
      const name = "g".repeat(length);
      expect([length, documented.test(name)]).toEqual([length, server(name)]);
    }
  });

  it("both take letters and digits of any script, and nothing else outside ASCII", () => {
    for (const name of ["grüße", "資源", "𝒜rg", "٣٤", "rg-é."]) {
      expect(documented.test(name)).toBe(!name.endsWith("."));
      expect(server(name)).toBe(!name.endsWith("."));
    }
  });
});

describe("names rewritten without lookarounds keep their rules", () => {
  it.each([
    ["ab1", true, true],
    ["a-b", true, true],
    ["-ab", false, false],
    ["ab-", false, false],
    ["ab", false, false],
    ["123", true, false],
    ["1-3", true, true],
    ["a".repeat(50), true, true],
    ["a".repeat(51), true, false],
    ["a".repeat(63), true, false],
    ["a".repeat(64), false, false],
  ])("%s: instance %s, endpoint %s", (name, instance, endpoint) => {
    expect(instanceNameSchema.safeParse(name).success).toBe(instance);
    expect(endpointNameSchema.safeParse(name).success).toBe(endpoint);
  });
});

describe("assessment and project names", () => {
  const path = (assessmentName: string) => ({
    subscriptionId: "s",
    resourceGroupName: "rg",
    projectName: "p",
    assessmentName,
  });

  it.each([".", "..", "...", " ", "\t", " \u00a0 "])("refuses %j", (name) => {
    expect(assessmentPathSchema.safeParse(path(name)).success).toBe(false);
  });

  it.each(["a.b", ".a", "a b", "..a", "é"])("takes %j", (name) => {
    expect(assessmentPathSchema.safeParse(path(name)).success).toBe(true);
  });
});
