import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * maximumInstanceCount of a Flex Consumption app caps the on-demand instances of each function
 * group (all HTTP functions; each queue-triggered function on its own), not of the app
 * (Azure/azure-rest-api-specs#45083), from 1 (Flex Consumption once required 40) to 1000. Whoever
 * sizes it against Cosmos DB reads the parameter's description and infra/README.md, so both must
 * say so.
 */
// INFRA_TEST_ROOT: check another copy of the repository (e.g. an older one) instead.
const ROOT = process.env.INFRA_TEST_ROOT ?? path.join(__dirname, "..", "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

const FLEX_MIN = 1;
const FLEX_MAX = 1000;

/** The decorators and default of `param maximumInstanceCount int = <n>`. */
function maximumInstanceCount(file: string) {
  const lines = read(file).split(/\r?\n/);
  const at = lines.findIndex((line) => /^param maximumInstanceCount int = \d+$/.test(line));
  if (at < 0) throw new Error(`${file} has no "param maximumInstanceCount int = <n>"`);
  let first = at;
  while (first > 0 && lines[first - 1]?.startsWith("@")) first--;
  const decorators = lines.slice(first, at).join("\n");
  const number = (name: string) => Number(new RegExp(`^@${name}\\((\\d+)\\)$`, "m").exec(decorators)?.[1]);
  return {
    min: number("minValue"),
    max: number("maxValue"),
    fallback: Number(/= (\d+)$/.exec(lines[at] ?? "")?.[1]),
    description: /^@description\('(.*)'\)$/m.exec(decorators)?.[1] ?? "",
  };
}

describe.each(["infra/main.bicep", "infra/app/api.bicep"])("maximumInstanceCount in %s", (file) => {
  const param = maximumInstanceCount(file);

  it("says it applies per function group, not per app", () => {
    expect(param.description).toMatch(/per function group/i);
    expect(param.description).toMatch(/not per app/i);
  });

  it("admits what Flex Consumption accepts, and only that, the default included", () => {
    // Not a higher floor either: a small deployment may well want a ceiling of a few instances.
    expect(param.min).toBe(FLEX_MIN);
    expect(param.max).toBeLessThanOrEqual(FLEX_MAX);
    expect(param.fallback).toBeGreaterThanOrEqual(param.min);
    expect(param.fallback).toBeLessThanOrEqual(param.max);
  });
});

describe("infra/README.md on the scale ceiling", () => {
  it("says the ceiling is per function group", () => {
    const readme = read("infra/README.md");
    const paragraph = readme.split(/\n\s*\n/).find((text) => text.includes("`maximumInstanceCount`")) ?? "";
    expect(paragraph).toMatch(/per function group/i);
    expect(paragraph).toMatch(/not of the app/i);
    expect(paragraph).toContain(`at least ${FLEX_MIN}`);
    expect(paragraph).not.toMatch(/\b40\b/);
  });
});

/** The default of `param <name> int = <n>` in main.bicep. */
function intDefault(name: string): number {
  const match = new RegExp(`^param ${name} int = (-?\\d+)$`, "m").exec(read("infra/main.bicep"));
  if (!match) throw new Error(`infra/main.bicep has no "param ${name} int = <n>"`);
  return Number(match[1]);
}

describe("docs/deployment-reference.md on what bounds the bill", () => {
  const reference = read("docs/deployment-reference.md");

  it.each(["instanceMemoryMB", "httpPerInstanceConcurrency", "maximumInstanceCount", "logDailyCapGb"])(
    "lists %s with main.bicep's default",
    (name) => {
      const row = reference.split("\n").find((line) => line.startsWith(`| \`${name}\``)) ?? "";
      const cells = row.split("|").map((cell) => cell.trim());
      expect({ name, default: /^-?\d+/.exec(cells[2] ?? "")?.[0] }).toEqual({
        name,
        default: String(intDefault(name)),
      });
    },
  );

  it("says the instance size, the concurrency and the cap as infra/README.md does", () => {
    const readme = read("infra/README.md");
    expect(readme).toContain(`Instances have ${intDefault("instanceMemoryMB")} MB`);
    expect(readme).toContain(`take ${intDefault("httpPerInstanceConcurrency")} concurrent HTTP requests`);
    expect(readme).toContain(`at most ${intDefault("logDailyCapGb")} GB a day`);
    expect(readme).toContain("azd env set LOG_DAILY_CAP_GB");
  });
});
