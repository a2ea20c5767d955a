import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import type { ZodType } from "zod";
import { configSchema, HOST_STORAGE_SETTINGS, LOCAL_ONLY_SETTINGS } from "../../src/config";
import { code } from "../support/bicep-text";

/**
 * infra/main.bicep must set exactly the settings src/config.ts reads in Azure, with the same
 * defaults. The Bicep keeps them in `var serviceSettings = { ... }`, one `NAME: value` per line,
 * apart from the Functions host's own `var platformSettings = { ... }`.
 */
// INFRA_TEST_ROOT: check another copy of the repository's infra/ (e.g. an older one) instead.
const ROOT = process.env.INFRA_TEST_ROOT ?? path.join(__dirname, "..", "..");
const MAIN_BICEP = path.join(ROOT, "infra", "main.bicep");
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

/**
 * Settings of `var platformSettings` that src/config.ts does not read: the Functions host's and the
 * platform's own, each with the reason it is set. Exactly these may be set besides the settings of
 * src/config.ts: a name the code does not read and nothing here explains is a typo or a leftover.
 */
const PLATFORM_ONLY_SETTINGS: Record<string, string> = {
  // The host's identity-based storage connection (AzureWebJobsStorage__queueServiceUri is read by
  // both the host and src/config.ts): the other services' URIs, which managed identity signs in,
  // and its client id.
  AzureWebJobsStorage__blobServiceUri: "the host's blobs (keys, leases), at the account's own endpoint",
  AzureWebJobsStorage__tableServiceUri: "the host's diagnostic events, at the account's own endpoint",
  AzureWebJobsStorage__credential: "the host's storage connection signs in with a managed identity",
  AzureWebJobsStorage__clientId: "the client id of that (user-assigned) identity, for the host",
  // Read by @azure/identity's DefaultAzureCredential (src/store/credentials.ts), not src/config.ts.
  AZURE_CLIENT_ID: "the client id of the managed identity the service's own code signs in with",
  APPLICATIONINSIGHTS_CONNECTION_STRING: "where the host sends telemetry",
  // Application Insights has local auth off: ingestion needs an Entra ID token of this identity.
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: "how the host authenticates its telemetry (Entra ID)",
};

/**
 * Settings main.bicep derives from a parameter (checked and reshaped) rather than passing the
 * parameter as it is: the value it writes, and the parameter whose default must be the code's.
 */
const DERIVED_SETTINGS: Record<string, { value: string; param: string }> = {
  // The comma-separated ids of ENDPOINT_IDENTITY_IDS, trimmed, and checked never to name the runtime
  // identity (test/unit/infra-identity.test.ts).
  ENDPOINT_USER_ASSIGNED_IDENTITIES: {
    value: "join(endpointIdentityIdList, ',')",
    param: "endpointIdentityIds",
  },
};

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

  it("sets no host or platform setting but those src/config.ts reads and the allow-listed ones", () => {
    const notRead = [...platformSettings.keys()].filter((name) => !configKeys.includes(name));
    expect({
      notAllowListed: notRead.filter((name) => !(name in PLATFORM_ONLY_SETTINGS)).sort(),
      allowListedButNotSet: Object.keys(PLATFORM_ONLY_SETTINGS)
        .filter((name) => !platformSettings.has(name))
        .sort(),
    }).toEqual({ notAllowListed: [], allowListedButNotSet: [] });
    expect(Object.keys(PLATFORM_ONLY_SETTINGS).filter((name) => configKeys.includes(name))).toEqual([]);
  });

  it("defaults every tunable setting to the default of src/config.ts", () => {
    const defaults = paramDefaults();
    const checked: string[] = [];
    const mismatches: string[] = [];
    for (const [setting, value] of serviceSettings) {
      const expected = codeDefault(setting);
      if (expected === undefined) continue;
      // A setting with a default in the code is a parameter of main.bicep, `name` or `string(name)`,
      // or a value Azure never tunes, written as a literal (AUTH_MODE: 'entra').
      const derived = DERIVED_SETTINGS[setting];
      if (derived !== undefined && derived.value !== value) {
        mismatches.push(`${setting}: infra/main.bicep writes ${value}, not ${derived.value}`);
      }
      const param = /^(?:string\((\w+)\)|(\w+))$/.exec(value);
      const paramName = derived?.param ?? param?.[1] ?? param?.[2];
      const literal = /^'([^'$]*)'$/.exec(value)?.[1];
      const actual = paramName === undefined ? literal : defaults.get(paramName);
      if (actual !== expected) {
        mismatches.push(`${setting}: src/config.ts ${expected}, infra/main.bicep ${actual ?? `(${value})`}`);
      }
      checked.push(setting);
    }
    expect(mismatches).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(10);
  });
});

describe("the host's storage connection", () => {
  it("names each storage service by the endpoint the account reports, right in every cloud", () => {
    expect({
      blob: platformSettings.get("AzureWebJobsStorage__blobServiceUri"),
      queue: platformSettings.get("AzureWebJobsStorage__queueServiceUri"),
      table: platformSettings.get("AzureWebJobsStorage__tableServiceUri"),
    }).toEqual({
      blob: "storage.outputs.blobEndpoint",
      queue: "storage.outputs.queueEndpoint",
      table: "storage.outputs.tableEndpoint",
    });
    const storage = readFileSync(
      path.join(ROOT, "infra", "core", "storage", "storage-account.bicep"),
      "utf8",
    );
    for (const service of ["blob", "queue", "table"])
      expect(storage).toContain(
        `output ${service}Endpoint string = storage.properties.primaryEndpoints.${service}\n`,
      );
  });

  it("sets no account name, from which the host would make public-cloud URIs, nor a connection string", () => {
    const everySetting = [...serviceSettings.keys(), ...platformSettings.keys()];
    expect(everySetting.filter((name) => /^AzureWebJobsStorage(?:__accountName)?$/.test(name))).toEqual([]);
    // Nor a storage URI made up in the Bicep (https://${name}.queue.core.windows.net).
    const madeUp = /\$\{[^}]*\}\.(?:blob|queue|table)\.core\./;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep interpolation, matched as text
    expect(madeUp.test("'https://${storage.outputs.name}.queue.core.windows.net'")).toBe(true);
    expect(code(source)).not.toMatch(madeUp);
  });

  it("signs in with the app's user-assigned identity", () => {
    expect(platformSettings.get("AzureWebJobsStorage__credential")).toBe("'managedidentity'");
    expect(platformSettings.get("AzureWebJobsStorage__clientId")).toBe("identity.outputs.clientId");
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
