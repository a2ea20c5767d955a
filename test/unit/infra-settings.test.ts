import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import type { ZodType } from "zod";
import { configSchema, HOST_STORAGE_SETTINGS, LOCAL_ONLY_SETTINGS } from "../../src/config";

/**
 * infra/main.bicep must set exactly the settings src/config.ts reads in Azure, with the same
 * defaults. The Bicep keeps them in `var serviceSettings = { ... }`, one `NAME: value` per line,
 * apart from the Functions host's own `var platformSettings = { ... }`.
 */
const MAIN_BICEP = path.join(__dirname, "..", "..", "infra", "main.bicep");
const source = readFileSync(MAIN_BICEP, "utf8");
const lines = source.split(/\r?\n/);

/** The `NAME: value` lines of a top-level `var <name> = { ... }`; anything else in it is an error. */
function objectVariable(name: string): Map<string, string> {
  const start = lines.indexOf(`var ${name} = {`);
  if (start < 0) throw new Error(`infra/main.bicep has no line "var ${name} = {"`);
  const end = lines.indexOf("}", start);
  if (end < 0) throw new Error(`var ${name} in infra/main.bicep is not closed by a line "}"`);
  const entries = new Map<string, string>();
  for (const line of lines.slice(start + 1, end)) {
    const text = line.trim();
    if (text === "" || text.startsWith("//")) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*): (.+)$/.exec(text);
    if (!match?.[1] || !match[2]) {
      throw new Error(`var ${name}: "${text}" is not one NAME: value per line`);
    }
    if (entries.has(match[1])) throw new Error(`var ${name}: ${match[1]} is set twice`);
    entries.set(match[1], match[2]);
  }
  return entries;
}

/** `param <name> <type> = <literal>` of main.bicep, with the literal as the app setting would carry it. */
function paramDefaults(): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const line of lines) {
    const match = /^param (\w+) (?:int|string|bool) = (.+)$/.exec(line.trim());
    if (!match?.[1] || !match[2]) continue;
    const literal = match[2].trim();
    if (/^'[^']*'$/.test(literal)) defaults.set(match[1], literal.slice(1, -1));
    else if (/^(?:-?\d+|true|false)$/.test(literal)) defaults.set(match[1], literal);
  }
  return defaults;
}

/** The default src/config.ts applies when the setting is absent, as the string an app setting holds. */
function codeDefault(setting: string): string | undefined {
  const schema = (configSchema.shape as Record<string, ZodType>)[setting];
  const parsed = schema?.safeParse(undefined);
  return parsed?.success && parsed.data !== undefined ? String(parsed.data) : undefined;
}

const configKeys = Object.keys(configSchema.shape).sort();
const localOnly = new Set<string>(LOCAL_ONLY_SETTINGS);
const hostStorage = new Set<string>(HOST_STORAGE_SETTINGS);
const serviceSettings = objectVariable("serviceSettings");
const platformSettings = objectVariable("platformSettings");

describe("infra/main.bicep app settings", () => {
  it("reads both setting objects (the parser finds known keys)", () => {
    expect(serviceSettings.has("COSMOS_ENDPOINT")).toBe(true);
    expect(serviceSettings.size).toBeGreaterThanOrEqual(10);
    expect(platformSettings.has("APPLICATIONINSIGHTS_CONNECTION_STRING")).toBe(true);
  });

  it("names only real settings as local-only or host storage", () => {
    const known = new Set(configKeys);
    expect([...localOnly, ...hostStorage].filter((name) => !known.has(name))).toEqual([]);
  });

  it("sets exactly the settings src/config.ts reads in Azure", () => {
    const deployed = configKeys.filter((name) => !localOnly.has(name) && !hostStorage.has(name));
    const inBicep = [...serviceSettings.keys()];
    expect({
      missingFromServiceSettings: deployed.filter((name) => !serviceSettings.has(name)),
      notReadBySrcConfig: inBicep.filter((name) => !deployed.includes(name)).sort(),
    }).toEqual({ missingFromServiceSettings: [], notReadBySrcConfig: [] });
  });

  it("never sets a local-only setting", () => {
    const everySetting = [...serviceSettings.keys(), ...platformSettings.keys()];
    expect(everySetting.filter((name) => localOnly.has(name))).toEqual([]);
  });

  it("gives the service its storage through the host's identity-based settings", () => {
    const platformConfigKeys = [...platformSettings.keys()].filter((name) => configKeys.includes(name));
    expect(platformConfigKeys.length).toBeGreaterThan(0);
    expect(platformConfigKeys.filter((name) => !hostStorage.has(name))).toEqual([]);
    expect([...serviceSettings.keys()].filter((name) => platformSettings.has(name))).toEqual([]);
  });

  it("defaults every tunable setting to the default of src/config.ts", () => {
    const defaults = paramDefaults();
    const checked: string[] = [];
    const mismatches: string[] = [];
    for (const [setting, value] of serviceSettings) {
      const expected = codeDefault(setting);
      if (expected === undefined) continue;
      // A setting with a default in the code is a parameter of main.bicep: `name` or `string(name)`.
      const param = /^(?:string\((\w+)\)|(\w+))$/.exec(value);
      const paramName = param?.[1] ?? param?.[2];
      const actual = paramName === undefined ? undefined : defaults.get(paramName);
      if (actual !== expected) {
        mismatches.push(`${setting}: src/config.ts ${expected}, infra/main.bicep ${actual ?? `(${value})`}`);
      }
      checked.push(setting);
    }
    expect(mismatches).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(10);
  });
});

describe("ALLOW_LOOPBACK_ENDPOINTS", () => {
  /** Every Bicep file under infra/, comments included: the name must not appear to be set anywhere. */
  function bicepFiles(directory: string): string[] {
    return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) return bicepFiles(full);
      return entry.name.endsWith(".bicep") || entry.name.endsWith(".json") ? [full] : [];
    });
  }

  it("is a local-only setting", () => {
    expect(LOCAL_ONLY_SETTINGS).toContain("ALLOW_LOOPBACK_ENDPOINTS");
  });

  it("is never set by the infrastructure (it would let endpoints reach the app's own host)", () => {
    const files = bicepFiles(path.join(__dirname, "..", "..", "infra"));
    expect(files.length).toBeGreaterThanOrEqual(2);
    const setting = files.filter((file) => readFileSync(file, "utf8").includes("ALLOW_LOOPBACK_ENDPOINTS"));
    expect(setting.map((file) => path.relative(path.join(__dirname, "..", ".."), file))).toEqual([]);
  });
});
