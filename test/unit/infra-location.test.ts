import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * `location` of infra/main.bicep admits only the regions that offer Flex Consumption (as
 * `az functionapp list-flexconsumption-locations` lists them; the official azd Flex Consumption
 * templates carry the same list): azd then offers only those, and a region without the plan fails
 * before anything is provisioned rather than at the Function App, halfway through.
 */
// INFRA_TEST_ROOT: check another copy of the repository (e.g. an older one) instead.
const ROOT = process.env.INFRA_TEST_ROOT ?? path.join(__dirname, "..", "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** The decorators of `param <name> string`, and the @allowed list among them. */
function allowedValues(file: string, name: string): { allowed: string[]; decorators: string } {
  const lines = read(file).split(/\r?\n/);
  const at = lines.indexOf(`param ${name} string`);
  if (at < 0) throw new Error(`${file} has no "param ${name} string"`);
  let first = at;
  // Decorators, and the lines inside a multi-line one (@allowed([ ... ]), @metadata({ ... })).
  while (
    first > 0 &&
    !/^(?:$|\/\/|param |var |resource |module |output |targetScope)/.test(lines[first - 1] ?? "")
  )
    first--;
  const decorators = lines.slice(first, at).join("\n");
  const list = /^@allowed\(\[\n([\s\S]*?)\n\]\)$/m.exec(decorators)?.[1] ?? "";
  return { allowed: list.split("\n").map((line) => line.trim().replace(/^'(.*)'$/, "$1")), decorators };
}

describe("the location parameter of infra/main.bicep", () => {
  const { allowed, decorators } = allowedValues("infra/main.bicep", "location");

  it("allows a list of region names, each once, in order", () => {
    expect(allowed.length).toBeGreaterThanOrEqual(20);
    for (const region of allowed) expect(region).toMatch(/^[a-z][a-z0-9]+$/);
    expect(new Set(allowed).size).toBe(allowed.length);
    expect([...allowed].sort()).toEqual(allowed);
  });

  it.each([
    "eastus",
    "eastus2",
    "westus2",
    "northeurope",
    "westeurope",
    "swedencentral",
    "uksouth",
    "australiaeast",
    "southeastasia",
    "eastasia",
  ])("admits %s, a Flex Consumption region", (region) => {
    expect(allowed).toContain(region);
  });

  it("keeps the azd region prompt (type location) and says where the list comes from", () => {
    expect(decorators).toMatch(/type: 'location'/);
    expect(decorators).toContain("az functionapp list-flexconsumption-locations");
  });

  it("admits the regions the docs use in their examples", () => {
    for (const doc of ["infra/README.md", "docs/operations.md", "README.md"]) {
      const regions = [...read(doc).matchAll(/azd env set AZURE_LOCATION (\w+)/g)].map((match) => match[1]);
      for (const region of regions)
        expect({ doc, region, allowed: allowed.includes(region as string) }).toEqual({
          doc,
          region,
          allowed: true,
        });
    }
  });
});
