import { readFileSync } from "node:fs";
import * as path from "node:path";
import { adminPrincipals, ConfigError, loadConfig, QUOTA_BOUNDS } from "../../src/config";
import { MAX_BODY_BYTES } from "../../src/http/request-body";
import { PendingSecret } from "../../src/secrets/encryption-key-setting";
import { pendingSecretsReason } from "../../src/secrets/secret-keys";
import { thrown } from "../support/thrown";

const valid = {
  COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
  COSMOS_KEY: "key",
  AzureWebJobsStorage: "UseDevelopmentStorage=true",
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  AUTH_MODE: "keys",
};

function problemsOf(env: Record<string, string>): string[] {
  const error = thrown(() => loadConfig(env));
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).problems;
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig(valid);
    expect(config.AUTH_PROFILE_CONTENT_MAX_BYTES).toBe(4096);
    expect(config.AUTH_PROFILE_MAX_COUNT).toBe(10);
    expect(config.COSMOS_DATABASE).toBe("twin-resources");
    expect(config.COSMOS_DISABLE_TLS_VERIFICATION).toBe(false);
  });

  it("names every bad setting", () => {
    const problems = problemsOf({ ...valid, COSMOS_ENDPOINT: "ftp://x", AUTH_PROFILE_MAX_COUNT: "abc" });
    expect(problems).toHaveLength(2);
    expect(problems.some((problem) => problem.startsWith("COSMOS_ENDPOINT must be"))).toBe(true);
    expect(problems).toContain("AUTH_PROFILE_MAX_COUNT must be a whole number from 1 to 1000");
  });

  it("names every missing required setting at once", () => {
    const problems = problemsOf({ COSMOS_ENDPOINT: valid.COSMOS_ENDPOINT });
    expect(problems).toHaveLength(2);
    expect(problems).toContain(
      "SECRETS_ENCRYPTION_KEY is required: 32 random bytes in base64 (generate one with: openssl rand -base64 32)",
    );
    expect(problems.find((problem) => problem.startsWith("AzureWebJobsStorage "))).toMatch(
      /^AzureWebJobsStorage is required \(a connection string/,
    );
  });

  it("takes the identity-based storage settings instead of a connection string", () => {
    const { AzureWebJobsStorage: _omitted, ...withoutConnectionString } = valid;
    expect(() =>
      loadConfig({ ...withoutConnectionString, AzureWebJobsStorage__accountName: "twinsstorage" }),
    ).not.toThrow();
    expect(
      problemsOf({ ...withoutConnectionString, AzureWebJobsStorage__accountName: "Not_An_Account" })[0],
    ).toMatch(/^AzureWebJobsStorage__accountName must be a storage account name/);
  });

  it("needs no Cosmos DB key: without one the service signs in with its identity", () => {
    const { COSMOS_KEY: _omitted, ...withoutKey } = valid;
    expect(loadConfig(withoutKey).COSMOS_KEY).toBeUndefined();
  });

  it("refuses to switch off TLS verification for a remote Cosmos account", () => {
    const problems = problemsOf({
      ...valid,
      COSMOS_ENDPOINT: "https://account.documents.azure.com:443/",
      COSMOS_DISABLE_TLS_VERIFICATION: "true",
    });
    expect(problems[0]).toBe(
      "COSMOS_DISABLE_TLS_VERIFICATION may only be true when COSMOS_ENDPOINT is a loopback address",
    );
  });

  it.each([
    ["AUTH_PROFILE_MAX_COUNT", ["abc", "0", "1.5", "1001", "-3"], "must be a whole number from 1 to 1000"],
    ["ENDPOINTS_PER_INSTANCE_MAX", ["x", "0", "101"], "must be a whole number from 1 to 100"],
    ["AUTH_PROFILE_CONTENT_MAX_BYTES", ["0", "1048577"], "must be a whole number from 1 to 1048576"],
    ["DELIVERY_MAX_ATTEMPTS", ["none", "0"], "must be a whole number, 1 or more"],
    ["ENDPOINT_CACHE_SECONDS", ["-1", "soon"], "must be a whole number of seconds, 0 or more"],
    ["COSMOS_DISABLE_TLS_VERIFICATION", ["yes"], "must be true or false"],
  ])("says what %s must be, as a sentence", (setting, values, rule) => {
    for (const value of values) {
      expect(problemsOf({ ...valid, [setting]: value })).toEqual([`${setting} ${rule}`]);
    }
  });

  it("takes the largest quotas it allows", () => {
    const config = loadConfig({
      ...valid,
      AUTH_PROFILE_MAX_COUNT: "1000",
      ENDPOINTS_PER_INSTANCE_MAX: "100",
    });
    expect(config.AUTH_PROFILE_MAX_COUNT).toBe(1000);
    expect(config.ENDPOINTS_PER_INSTANCE_MAX).toBe(100);
  });

  it("words every problem as a sentence about the setting, never in the validator's words", () => {
    const problems = problemsOf({
      COSMOS_ENDPOINT: "not a url",
      COSMOS_DATABASE: "-bad",
      COSMOS_REQUEST_TIMEOUT_MS: "0",
      AzureWebJobsStorage__accountName: "Bad_Name",
      AzureWebJobsStorage__queueServiceUri: "nope",
      TWIN_EVENTS_QUEUE: "Upper",
      DELIVERY_TTL_SECONDS: "1.5",
      DELIVERY_BACKOFF_BASE_SECONDS: "-1",
      DELIVERY_BACKOFF_CAP_SECONDS: "x",
      DELIVERY_SEND_TIMEOUT_MS: "x",
      STORAGE_HOST_SUFFIXES: "net",
      ALLOW_LOOPBACK_ENDPOINTS: "maybe",
      PUBLIC_BASE_URL: "https://a.example/?q=1",
      SECRETS_ENCRYPTION_KEY: "short",
      SECRETS_ENCRYPTION_PREVIOUS_KEYS: "short",
    });
    expect(problems).toHaveLength(15);
    for (const problem of problems) {
      expect(problem).toMatch(/^[A-Za-z_]+ (?:must|may|is) /);
      expect(problem).not.toMatch(/Invalid|expected|received|NaN|Too (?:big|small)/);
    }
  });

  it("lists the problems under a line saying where settings are fixed", () => {
    const error = thrown(() => loadConfig({ ...valid, AUTH_PROFILE_MAX_COUNT: "0" })) as ConfigError;
    expect(error.message).toBe(
      "A setting needs fixing (in local.settings.json, the environment, or the app settings in Azure):\n" +
        "  - AUTH_PROFILE_MAX_COUNT must be a whole number from 1 to 1000.",
    );
  });

  it("bounds the content quota by the request body limit: a larger profile could not be sent", () => {
    expect(QUOTA_BOUNDS.AUTH_PROFILE_CONTENT_MAX_BYTES).toBe(MAX_BODY_BYTES);
  });

  it("allows no quota in infra/main.bicep above what the service accepts", () => {
    const bicep = readFileSync(path.join(__dirname, "..", "..", "infra", "main.bicep"), "utf8");
    const params = {
      AUTH_PROFILE_MAX_COUNT: "authProfileMaxCount",
      ENDPOINTS_PER_INSTANCE_MAX: "endpointsPerInstanceMax",
      ROUTES_PER_INSTANCE_MAX: "routesPerInstanceMax",
      AUTH_PROFILE_CONTENT_MAX_BYTES: "authProfileContentMaxBytes",
    } as const;
    for (const [setting, param] of Object.entries(params)) {
      const declaration = new RegExp(`((?:@\\w+\\([^\\n]*\\)\\n)+)param ${param} int = (\\d+)`).exec(bicep);
      expect(declaration).not.toBeNull();
      const maxValue = /@maxValue\((\d+)\)/.exec(declaration?.[1] ?? "")?.[1];
      expect({ setting, maxValue: Number(maxValue) }).toEqual({
        setting,
        maxValue: QUOTA_BOUNDS[setting as keyof typeof QUOTA_BOUNDS],
      });
      expect(Number(declaration?.[2])).toBeLessThanOrEqual(
        QUOTA_BOUNDS[setting as keyof typeof QUOTA_BOUNDS],
      );
    }
  });

  it("never quotes a setting's value in its message", () => {
    const secretLooking = "not-a-number-but-secret";
    expect(problemsOf({ ...valid, AUTH_PROFILE_MAX_COUNT: secretLooking }).join("\n")).not.toContain(
      secretLooking,
    );
  });
});

describe("SECRETS_ENCRYPTION_KEY", () => {
  it("is required", () => {
    const { SECRETS_ENCRYPTION_KEY: _omitted, ...withoutKey } = valid;
    expect(problemsOf(withoutKey)).toEqual([
      "SECRETS_ENCRYPTION_KEY is required: 32 random bytes in base64 (generate one with: openssl rand -base64 32)",
    ]);
  });

  it.each([
    ["16 bytes", Buffer.alloc(16, 1).toString("base64")],
    ["33 bytes", Buffer.alloc(33, 1).toString("base64")],
    ["not base64", "this is not base64 at all!!"],
  ])("refuses a key of %s without echoing it", (_label, key) => {
    const problems = problemsOf({ ...valid, SECRETS_ENCRYPTION_KEY: key });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SECRETS_ENCRYPTION_KEY must be 32 random bytes in base64/);
    expect(problems[0]).not.toContain(key);
  });

  it("decodes the key and the previous keys", () => {
    const previous = [Buffer.alloc(32, 2), Buffer.alloc(32, 3)];
    const config = loadConfig({
      ...valid,
      SECRETS_ENCRYPTION_PREVIOUS_KEYS: previous.map((key) => key.toString("base64")).join(", "),
    });
    expect(config.SECRETS_ENCRYPTION_KEY).toEqual(Buffer.alloc(32, 7));
    expect(config.SECRETS_ENCRYPTION_PREVIOUS_KEYS).toEqual(previous);
  });
});

describe("a secret setting that is an unresolved Key Vault reference", () => {
  const reference =
    "@Microsoft.KeyVault(SecretUri=https://kv-abc123.vault.azure.net/secrets/secrets-encryption-key)";

  it("is pending, not an error: the app loads, and the key is not there", () => {
    const config = loadConfig({ ...valid, SECRETS_ENCRYPTION_KEY: reference });
    expect(config.SECRETS_ENCRYPTION_KEY).toBeInstanceOf(PendingSecret);
    expect(pendingSecretsReason(config)).toBe("SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference");
  });

  it.each([
    ["the other form", "@Microsoft.KeyVault(VaultName=kv-abc123;SecretName=secrets-encryption-key)"],
    ["another case", "@microsoft.keyvault(SecretUri=https://kv.vault.azure.net/secrets/k)"],
    ["leading blanks", "  @Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/k)"],
    ["no closing parenthesis", "@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/k"],
  ])("is recognised in %s", (_label, value) => {
    expect(loadConfig({ ...valid, SECRETS_ENCRYPTION_KEY: value }).SECRETS_ENCRYPTION_KEY).toBeInstanceOf(
      PendingSecret,
    );
  });

  it.each([
    ["without the @", "Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/k)"],
    ["without the parenthesis", "@Microsoft.KeyVault SecretUri=https://kv.vault.azure.net/secrets/k"],
    ["after other text", "key @Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/k)"],
    ["another reference kind", "@Microsoft.AppConfiguration(Endpoint=https://c.azconfig.io; Key=k)"],
  ])("is an error when written %s, naming the setting and not the value", (_label, value) => {
    const problems = problemsOf({ ...valid, SECRETS_ENCRYPTION_KEY: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SECRETS_ENCRYPTION_KEY must be 32 random bytes in base64/);
    expect(problems[0]).not.toContain("kv.vault");
  });

  it("is pending in SECRETS_ENCRYPTION_PREVIOUS_KEYS too, and both are named", () => {
    const config = loadConfig({
      ...valid,
      SECRETS_ENCRYPTION_KEY: reference,
      SECRETS_ENCRYPTION_PREVIOUS_KEYS:
        "@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/old)",
    });
    expect(config.SECRETS_ENCRYPTION_PREVIOUS_KEYS).toBeInstanceOf(PendingSecret);
    expect(pendingSecretsReason(config)).toBe(
      "SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference; SECRETS_ENCRYPTION_PREVIOUS_KEYS is an unresolved Key Vault reference",
    );
  });

  it("stops no other check: another bad setting still fails the load, named alone", () => {
    const problems = problemsOf({ ...valid, SECRETS_ENCRYPTION_KEY: reference, AUTH_PROFILE_MAX_COUNT: "0" });
    expect(problems).toEqual(["AUTH_PROFILE_MAX_COUNT must be a whole number from 1 to 1000"]);
  });

  it("is no reference in any other setting: a reference there is the error it always was", () => {
    const problems = problemsOf({ ...valid, COSMOS_ENDPOINT: reference });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^COSMOS_ENDPOINT must be/);
  });
});

describe("where endpoints may point", () => {
  it("defaults to the Azure clouds' Service Bus and blob hosts, without loopback", () => {
    const config = loadConfig(valid);
    expect(config.SERVICEBUS_HOST_SUFFIXES).toEqual([
      ".servicebus.windows.net",
      ".servicebus.chinacloudapi.cn",
      ".servicebus.usgovcloudapi.net",
    ]);
    expect(config.STORAGE_HOST_SUFFIXES).toEqual([
      ".blob.core.windows.net",
      ".blob.core.chinacloudapi.cn",
      ".blob.core.usgovcloudapi.net",
    ]);
    expect(config.ALLOW_LOOPBACK_ENDPOINTS).toBe(false);
  });

  it("reads comma-separated suffixes, blanks and case aside, and the loopback switch", () => {
    const config = loadConfig({
      ...valid,
      SERVICEBUS_HOST_SUFFIXES: " .Bus.Contoso.Example , .servicebus.windows.net ",
      STORAGE_HOST_SUFFIXES: ".blob.contoso.example",
      ALLOW_LOOPBACK_ENDPOINTS: "true",
    });
    expect(config.SERVICEBUS_HOST_SUFFIXES).toEqual([".bus.contoso.example", ".servicebus.windows.net"]);
    expect(config.STORAGE_HOST_SUFFIXES).toEqual([".blob.contoso.example"]);
    expect(config.ALLOW_LOOPBACK_ENDPOINTS).toBe(true);
  });

  it.each([
    ["no leading dot", "servicebus.windows.net"],
    ["a single label, which would admit a whole top-level domain", ".net"],
    ["a wildcard", ".*.windows.net"],
    ["an empty entry", ".servicebus.windows.net,,"],
    ["a trailing dot", ".servicebus.windows.net."],
    ["an IP address", ".127.0.0.1"],
  ])("refuses a suffix with %s", (_label, suffixes) => {
    const problems = problemsOf({
      ...valid,
      SERVICEBUS_HOST_SUFFIXES: suffixes,
      STORAGE_HOST_SUFFIXES: suffixes,
    });
    expect(problems.map((problem) => problem.split(" ")[0]).sort()).toEqual([
      "SERVICEBUS_HOST_SUFFIXES",
      "STORAGE_HOST_SUFFIXES",
    ]);
  });

  it("refuses a loopback switch that is not a boolean", () => {
    expect(problemsOf({ ...valid, ALLOW_LOOPBACK_ENDPOINTS: "yes" })).toEqual([
      "ALLOW_LOOPBACK_ENDPOINTS must be true or false",
    ]);
  });
});

describe("AUTH_ADMIN_PRINCIPALS", () => {
  const TENANT = "00000000-0000-4000-8000-00000000a11d";
  const OTHER = "11111111-2222-4333-8444-555555555555";
  const OID = "aaaaaaaa-0000-4000-8000-000000000001";
  const OID2 = "bbbbbbbb-0000-4000-8000-000000000002";
  const entra = {
    ...valid,
    AUTH_MODE: "entra",
    AUTH_AUTHORITY: `https://login.microsoftonline.com/${TENANT}/v2.0`,
    AUTH_AUDIENCE: "api://twin-resources",
  };
  const RULE =
    "AUTH_ADMIN_PRINCIPALS must be comma-separated entries, each '{tenant id}/{object id}' or an object id of the authority's tenant (GUIDs)";

  it("reads '{tenant id}/{object id}' and bare object ids, blanks and case aside; a bare id is of the authority's tenant", () => {
    const config = loadConfig({
      ...entra,
      AUTH_ADMIN_PRINCIPALS: ` ${OTHER.toUpperCase()}/${OID.toUpperCase()} , ${OID2.toUpperCase()},${TENANT}/${OID}`,
    });
    expect(config.AUTH_ADMIN_PRINCIPALS).toEqual([
      { tenantId: OTHER, objectId: OID },
      { objectId: OID2 },
      { tenantId: TENANT, objectId: OID },
    ]);
    expect(adminPrincipals(config)).toEqual([
      { tenantId: OTHER, objectId: OID },
      { tenantId: TENANT, objectId: OID2 },
      { tenantId: TENANT, objectId: OID },
    ]);
  });

  it("takes the tenant of the local issuer's authority, and of one spelled in capitals", () => {
    for (const authority of [
      `http://127.0.0.1:7072/${TENANT}/v2.0`,
      `https://login.microsoftonline.us/${TENANT.toUpperCase()}/v2.0/`,
    ]) {
      const config = loadConfig({ ...entra, AUTH_AUTHORITY: authority, AUTH_ADMIN_PRINCIPALS: OID });
      expect(adminPrincipals(config)).toEqual([{ tenantId: TENANT, objectId: OID }]);
    }
  });

  it("is empty when absent", () => {
    expect(loadConfig(entra).AUTH_ADMIN_PRINCIPALS).toBeUndefined();
    expect(adminPrincipals(loadConfig(entra))).toEqual([]);
  });

  it.each([
    "admin",
    `${OID}x`,
    `${TENANT}/`,
    `/${OID}`,
    `${TENANT}/${OID}/${OID2}`,
    `${TENANT}:${OID}`,
    `${TENANT}\\${OID}`,
    `contoso.onmicrosoft.com/${OID}`,
    `${TENANT}/admin@contoso.com`,
    `${OID},not-a-guid`,
    " , ",
  ])("refuses %j, saying what an entry must be and never quoting it", (value) => {
    const problems = problemsOf({ ...entra, AUTH_ADMIN_PRINCIPALS: value });
    expect(problems).toEqual([RULE]);
    if (value.trim() !== ",") expect(problems.join("\n")).not.toContain(value);
  });

  it.each([
    "https://login.microsoftonline.com/common/v2.0",
    "https://login.microsoftonline.com/organizations/v2.0",
  ])(
    "refuses a bare object id when AUTH_AUTHORITY names no single tenant (%s), and takes one with its tenant",
    (authority) => {
      const multi = { ...entra, AUTH_AUTHORITY: authority, AUTH_ALLOWED_TENANTS: `${TENANT},${OTHER}` };
      expect(problemsOf({ ...multi, AUTH_ADMIN_PRINCIPALS: `${TENANT}/${OID},${OID2}` })).toEqual([
        "AUTH_ADMIN_PRINCIPALS must name each principal's tenant ('{tenant id}/{object id}') when AUTH_AUTHORITY names no single tenant (common, organizations): a bare object id means the authority's tenant",
      ]);
      const config = loadConfig({ ...multi, AUTH_ADMIN_PRINCIPALS: `${TENANT}/${OID},${OTHER}/${OID2}` });
      expect(adminPrincipals(config)).toEqual([
        { tenantId: TENANT, objectId: OID },
        { tenantId: OTHER, objectId: OID2 },
      ]);
    },
  );

  it("refuses a bare object id when AUTH_AUTHORITY names its tenant by domain, not by id", () => {
    const byName = {
      ...entra,
      AUTH_AUTHORITY: "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0",
    };
    expect(problemsOf({ ...byName, AUTH_ADMIN_PRINCIPALS: OID })).toEqual([
      "AUTH_ADMIN_PRINCIPALS must name each principal's tenant ('{tenant id}/{object id}') when AUTH_AUTHORITY names its tenant by no tenant id (GUID): a bare object id means the authority's tenant",
    ]);
    expect(adminPrincipals(loadConfig({ ...byName, AUTH_ADMIN_PRINCIPALS: `${TENANT}/${OID}` }))).toEqual([
      { tenantId: TENANT, objectId: OID },
    ]);
  });

  it("under keys, where nobody signs in with a token, makes nobody an administrator of a bare id without an authority", () => {
    const config = loadConfig({ ...valid, AUTH_ADMIN_PRINCIPALS: OID });
    expect(adminPrincipals(config)).toEqual([]);
  });
});
