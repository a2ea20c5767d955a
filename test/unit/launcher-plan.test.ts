import { readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { projectRoot } from "../../dev/local-paths";
import { ensureLocalSecretsKey, rotateLocalSecretsKey } from "../../dev/local-secrets-key";
import { loadLocalSettings, readSettingsFile } from "../../dev/local-settings";
import { planStack } from "../../dev/stack-plan";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import { LOCAL_TENANT_ID, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { StartupError } from "../../dev/startup-error";
import { curlExample, formatSummary, shellQuote } from "../../dev/summary";
import { loadConfig } from "../../src/config";
import { secretSealer } from "../../src/secrets/secret-keys";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// What the launcher decides before it starts anything: ports, which stand-ins run, the settings.

afterAll(removeTempDirs);

const keys = { FUNCTION_KEY: "f", MASTER_KEY: "m" };
const SECRET = Buffer.alloc(32, 7).toString("base64");

function settingsFile(content: string): string {
  const file = path.join(tempDir("launcher-plan-"), "settings.json");
  writeFileSync(file, content);
  return file;
}

describe("planStack", () => {
  it("starts Azurite and the Cosmos server on the default ports when nothing is configured", () => {
    const plan = planStack({ ...keys });
    expect(plan.ports).toEqual([
      { variable: "PORT", port: 7071 },
      { variable: "AZURITE_BLOB_PORT", port: 10000 },
      { variable: "AZURITE_QUEUE_PORT", port: 10001 },
      { variable: "COSMOS_PORT", port: 8081 },
      { variable: "SERVICEBUS_PORT", port: 5672 },
      { variable: "ISSUER_PORT", port: 7072 },
      { variable: "SERVICEBUS_TLS_PORT", port: 5671 },
      { variable: "AZURITE_BLOB_TLS_PORT", port: 10443 },
      { variable: "IDENTITY_PORT", port: 7073 },
    ]);
    expect(plan.serviceBus.connectionString).toContain("Endpoint=sb://127.0.0.1:5672/;");

    expect(plan.host.url).toBe("http://127.0.0.1:7071");
    expect(plan.settings.COSMOS_ENDPOINT).toBe("https://127.0.0.1:8081/");
    expect(plan.settings.COSMOS_KEY).toBe(COSMOS_EMULATOR_KEY);
    expect(plan.settings.AzureWebJobsStorage).toContain(
      "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1",
    );
    expect(plan.settings.AzureWebJobsStorage).toContain(
      "QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1",
    );
  });

  it("gives settings that pass the service's own validation, with the committed sample", () => {
    const sample = readSettingsFile(path.join(projectRoot(), "local.settings.sample.json"));
    const settings = { ...sample, LOCAL_DATA_DIR: tempDir("launcher-plan-") };
    ensureLocalSecretsKey(settings);
    expect(() => loadConfig(planStack(settings).settings)).not.toThrow();
  });

  it("follows the port variables", () => {
    const plan = planStack({
      ...keys,
      PORT: "1",
      AZURITE_BLOB_PORT: "2",
      AZURITE_QUEUE_PORT: "3",
      COSMOS_PORT: "4",
      SERVICEBUS_PORT: "5",
      ISSUER_PORT: "6",
      SERVICEBUS_TLS_PORT: "7",
      AZURITE_BLOB_TLS_PORT: "8",
      IDENTITY_PORT: "9",
    });
    expect(plan.ports.map(({ port }) => port)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    expect(plan.settings.COSMOS_ENDPOINT).toBe("https://127.0.0.1:4/");
  });

  it("does not start Azurite when AzureWebJobsStorage is configured", () => {
    const plan = planStack({ ...keys, AzureWebJobsStorage: "DefaultEndpointsProtocol=https;AccountName=a" });
    expect(plan.azurite).toBeUndefined();
    expect(plan.settings.AzureWebJobsStorage).toBe("DefaultEndpointsProtocol=https;AccountName=a");
    expect(plan.ports.map(({ variable }) => variable)).not.toContain("AZURITE_BLOB_PORT");
  });

  it("does not start Azurite when identity-based AzureWebJobsStorage__* settings are configured", () => {
    expect(planStack({ ...keys, AzureWebJobsStorage__accountName: "account" }).azurite).toBeUndefined();
  });

  it("starts Azurite for UseDevelopmentStorage=true, with a connection string naming its ports", () => {
    const plan = planStack({
      ...keys,
      AzureWebJobsStorage: "UseDevelopmentStorage=true",
      AZURITE_BLOB_PORT: "12",
    });
    expect(plan.azurite?.blobPort).toBe(12);
    expect(plan.settings.AzureWebJobsStorage).toContain("BlobEndpoint=http://127.0.0.1:12/devstoreaccount1");
  });

  it("does not start the Cosmos server when COSMOS_ENDPOINT is configured", () => {
    const plan = planStack({
      ...keys,
      COSMOS_ENDPOINT: "https://account.documents.azure.com:443/",
      COSMOS_KEY: "k",
    });
    expect(plan.cosmos).toBeUndefined();
    expect(plan.settings.COSMOS_KEY).toBe("k");
    expect(plan.settings.COSMOS_DISABLE_TLS_VERIFICATION).toBeUndefined();
  });

  it.each(["abc", "0", "70000", "80.5"])("refuses PORT=%s, naming the variable", (value) => {
    expect(() => planStack({ ...keys, PORT: value })).toThrow(
      new StartupError("PORT must be a port number from 1 to 65535."),
    );
  });

  it("refuses two services on one port, naming both variables", () => {
    expect(() => planStack({ ...keys, PORT: "9000", COSMOS_PORT: "9000" })).toThrow(
      "PORT and COSMOS_PORT are both 9000; give each its own port.",
    );
  });

  it("refuses to plan without the local keys, naming them", () => {
    expect(() => planStack({})).toThrow(/^FUNCTION_KEY and MASTER_KEY must be set/);
    expect(() => planStack({ FUNCTION_KEY: "f" })).toThrow(/^MASTER_KEY must be set/);
  });
});

describe("local settings", () => {
  it("reads the Values of a Functions settings file", () => {
    const file = settingsFile('{"IsEncrypted":false,"Values":{"A":"1","B":2,"C":true}}');
    expect(readSettingsFile(file)).toEqual({ A: "1", B: "2", C: "true" });
  });

  it("lets real environment variables override the file", () => {
    const file = settingsFile('{"IsEncrypted":false,"Values":{"A":"file","B":"file"}}');
    const { values } = loadLocalSettings({ LOCAL_SETTINGS_FILE: file, B: "env" });
    expect(values).toMatchObject({ A: "file", B: "env" });
  });

  it("falls back to the committed sample, which holds the local keys", () => {
    // Only meaningful where the developer has no local.settings.json of their own.
    const { file, values } = loadLocalSettings({});
    if (file?.endsWith("local.settings.sample.json")) {
      expect(values).toMatchObject({
        FUNCTION_KEY: "local-function-key-change-me",
        MASTER_KEY: "local-master-key-change-me",
        FUNCTIONS_WORKER_RUNTIME: "node",
      });
    }
    expect(file).toBeDefined();
  });

  it("names the file when it is not JSON", () => {
    const file = settingsFile("{ // comment\n}");
    expect(() => readSettingsFile(file)).toThrow(/^settings\.json is not valid JSON/);
  });

  it("refuses encrypted settings", () => {
    expect(() => readSettingsFile(settingsFile('{"IsEncrypted":true,"Values":{}}'))).toThrow(/encrypted/);
  });
});

describe("the local secrets key", () => {
  function dataDir(): string {
    return tempDir("launcher-key-");
  }

  it("is generated into LOCAL_DATA_DIR when none is set, then reused", () => {
    const folder = dataDir();
    const first: Record<string, string> = { LOCAL_DATA_DIR: folder };
    expect(ensureLocalSecretsKey(first)).toEqual({
      file: path.join(folder, "secrets-encryption-key"),
      generated: true,
      previous: 0,
    });
    expect(Buffer.from(first.SECRETS_ENCRYPTION_KEY ?? "", "base64")).toHaveLength(32);
    const second: Record<string, string> = { LOCAL_DATA_DIR: folder };
    expect(ensureLocalSecretsKey(second).generated).toBe(false);
    expect(second.SECRETS_ENCRYPTION_KEY).toBe(first.SECRETS_ENCRYPTION_KEY);
  });

  it("is left alone when the settings bring one", () => {
    const settings = { LOCAL_DATA_DIR: dataDir(), SECRETS_ENCRYPTION_KEY: "given" };
    expect(ensureLocalSecretsKey(settings)).toEqual({ file: undefined, generated: false, previous: 0 });
    expect(settings.SECRETS_ENCRYPTION_KEY).toBe("given");
  });

  it("refuses a damaged key file, naming it", () => {
    const folder = dataDir();
    writeFileSync(path.join(folder, "secrets-encryption-key"), "not a key\n");
    expect(() => ensureLocalSecretsKey({ LOCAL_DATA_DIR: folder })).toThrow(
      /secrets-encryption-key does not hold/,
    );
  });
});

describe("npm run rotate-key", () => {
  /** What a plain `npm start` gives the host: the sample's settings, the local key(s) added. */
  function started(folder: string, extra: Record<string, string> = {}) {
    const sample = readSettingsFile(path.join(projectRoot(), "local.settings.sample.json"));
    const settings: Record<string, string> = { ...sample, ...extra, LOCAL_DATA_DIR: folder };
    const key = ensureLocalSecretsKey(settings);
    return { key, settings, sealer: secretSealer(loadConfig(planStack(settings).settings)) };
  }

  it("leaves a plain restart sealing with the new key and opening what every earlier key sealed", () => {
    const folder = tempDir("rotate-key-");
    const first = started(folder);
    const sealedFirst = first.sealer.seal("first secret", "endpoint-1");
    expect(rotateLocalSecretsKey({ LOCAL_DATA_DIR: folder }).previous).toBe(1);
    const second = started(folder);
    expect(second.settings.SECRETS_ENCRYPTION_KEY).not.toBe(first.settings.SECRETS_ENCRYPTION_KEY);
    expect(second.key).toEqual({
      file: path.join(folder, "secrets-encryption-key"),
      generated: false,
      previous: 1,
    });
    const sealedSecond = second.sealer.seal("second secret", "endpoint-2");
    expect(sealedSecond.keyId).not.toBe(sealedFirst.keyId);
    // Twice: the oldest key is still kept.
    expect(rotateLocalSecretsKey({ LOCAL_DATA_DIR: folder }).previous).toBe(2);
    const third = started(folder);
    expect(third.sealer.open(sealedFirst, "endpoint-1")).toBe("first secret");
    expect(third.sealer.open(sealedSecond, "endpoint-2")).toBe("second secret");
  });

  it("keeps previous keys the settings name, after its own", () => {
    const folder = tempDir("rotate-key-");
    started(folder);
    rotateLocalSecretsKey({ LOCAL_DATA_DIR: folder });
    const given = Buffer.alloc(32, 9).toString("base64");
    const { settings } = started(folder, { SECRETS_ENCRYPTION_PREVIOUS_KEYS: given });
    expect(settings.SECRETS_ENCRYPTION_PREVIOUS_KEYS?.split(",")).toHaveLength(2);
    expect(settings.SECRETS_ENCRYPTION_PREVIOUS_KEYS?.startsWith(`${given},`)).toBe(true);
  });

  it("writes the keys readable by their owner only, and never prints one", () => {
    const folder = tempDir("rotate-key-");
    started(folder);
    rotateLocalSecretsKey({ LOCAL_DATA_DIR: folder });
    for (const name of ["secrets-encryption-key", "secrets-encryption-previous-keys"]) {
      expect(readFileSync(path.join(folder, name), "utf8")).toMatch(/^([A-Za-z0-9+/]+=*\n)+$/);
    }
  });

  it("refuses when there is no local key yet, or the settings bring their own", () => {
    expect(() => rotateLocalSecretsKey({ LOCAL_DATA_DIR: tempDir("rotate-key-") })).toThrow(
      /npm start makes one/,
    );
    expect(() =>
      rotateLocalSecretsKey({ LOCAL_DATA_DIR: tempDir("rotate-key-"), SECRETS_ENCRYPTION_KEY: "given" }),
    ).toThrow(/SECRETS_ENCRYPTION_KEY is set/);
  });

  it("refuses a damaged previous-keys file at start, naming it", () => {
    const folder = tempDir("rotate-key-");
    started(folder);
    writeFileSync(path.join(folder, "secrets-encryption-previous-keys"), "not a key\n");
    expect(() => ensureLocalSecretsKey({ LOCAL_DATA_DIR: folder })).toThrow(
      /secrets-encryption-previous-keys holds a line/,
    );
  });
});

describe("the curl example", () => {
  it("quotes values for the shell only when needed", () => {
    expect(shellQuote("http://127.0.0.1:7071/x")).toBe("http://127.0.0.1:7071/x");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it("sends the function key and a body whose content is a JSON object string", () => {
    expect(curlExample("http://127.0.0.1:7071", { functionKey: "key" })).toBe(
      `curl -X PUT http://127.0.0.1:7071/authenticationProfiles/example -H 'x-functions-key: key' ` +
        `-H 'Content-Type: application/json' -d '{"authenticationProfileContent":` +
        `"{\\"AllowDBUserOverride\\":\\"1\\",\\"Client_ID\\":\\"ExampleClientID\\",\\"App_ID\\":\\"example\\"}"}'`,
    );
  });

  it("sends $TOKEN as a bearer token under entra, left for the shell to expand", () => {
    const curl = curlExample("http://127.0.0.1:7071", { tokenVariable: "TOKEN" });
    expect(curl).toContain(`-H "Authorization: Bearer $TOKEN"`);
    expect(curl).not.toContain("x-functions-key");
  });
});

const T = LOCAL_TENANT_ID;
const developer = principalObjectId("developer");

describe("who may call the local stack", () => {
  it("is Entra ID tokens from the local issuer by default, the developer an administrator", () => {
    const plan = planStack({ ...keys });
    expect(plan.settings).toMatchObject({
      AUTH_MODE: "entra",
      AUTH_AUTHORITY: `http://127.0.0.1:7072/${T}/v2.0`,
      AUTH_AUDIENCE: "00000000-0000-4000-8000-0000000a0d1e,api://00000000-0000-4000-8000-0000000a0d1e",
      AUTH_ALLOWED_TENANTS: T,
      AUTH_ADMIN_PRINCIPALS: developer,
      ISSUER_PORT: "7072",
    });
    expect(plan.issuer).toEqual({
      port: 7072,
      authority: `http://127.0.0.1:7072/${T}/v2.0`,
      tenantId: T,
      clientId: "00000000-0000-4000-8000-0000000a0d1e",
      keyFile: path.join(projectRoot(), ".local", "issuer-key.json"),
      developerObjectId: developer,
      developerIsAdmin: true,
    });
    const config = loadConfig({ ...planStack({ ...keys, SECRETS_ENCRYPTION_KEY: SECRET }).settings });
    expect(config.AUTH_MODE).toBe("entra");
  });

  it.each([["entra"], [""], ["  "]])("plans the issuer for AUTH_MODE=%j, on ISSUER_PORT", (mode) => {
    const plan = planStack({ ...keys, AUTH_MODE: mode, ISSUER_PORT: "17072", LOCAL_DATA_DIR: "/tmp/x" });
    expect(plan.issuer?.authority).toBe(`http://127.0.0.1:17072/${T}/v2.0`);
    expect(plan.issuer?.keyFile).toBe("/tmp/x/issuer-key.json");
    expect(plan.settings.AUTH_AUTHORITY).toBe(plan.issuer?.authority);
  });

  it("refuses a bad ISSUER_PORT, or one another service has", () => {
    expect(() => planStack({ ...keys, ISSUER_PORT: "x" })).toThrow(
      "ISSUER_PORT must be a port number from 1 to 65535.",
    );
    expect(() => planStack({ ...keys, PORT: "7072" })).toThrow(
      "PORT and ISSUER_PORT are both 7072; give each its own port.",
    );
  });

  it("is the keys, with no issuer and no token settings, when AUTH_MODE=keys", () => {
    const plan = planStack({ ...keys, AUTH_MODE: "keys", ISSUER_PORT: "not a port", PORT: "7072" });
    expect(plan.issuer).toBeUndefined();
    expect(plan.ports.map(({ variable }) => variable)).not.toContain("ISSUER_PORT");
    for (const name of ["AUTH_AUTHORITY", "AUTH_AUDIENCE", "AUTH_ALLOWED_TENANTS", "AUTH_ADMIN_PRINCIPALS"]) {
      expect(plan.settings).not.toHaveProperty(name);
    }
  });

  it("is the developer's own authority when AUTH_AUTHORITY names one: no local issuer, nothing invented", () => {
    const authority = "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0";
    const plan = planStack({ ...keys, AUTH_AUTHORITY: authority });
    expect(plan.issuer).toBeUndefined();
    expect(plan.settings.AUTH_AUTHORITY).toBe(authority);
    expect(plan.settings).not.toHaveProperty("AUTH_AUDIENCE");
    expect(plan.settings).not.toHaveProperty("AUTH_ADMIN_PRINCIPALS");
    expect(plan.ports.map(({ variable }) => variable)).not.toContain("ISSUER_PORT");
  });

  it.each([
    `http://127.0.0.1:7999/${T}/v2.0`,
    `http://localhost:7072/${T.toUpperCase()}/v2.0/`,
    ` http://[::1]:1/${T}/v2.0 `,
  ])("replaces a local issuer's AUTH_AUTHORITY of an earlier start (%s) by this start's", (stale) => {
    const plan = planStack({ ...keys, AUTH_AUTHORITY: stale, ISSUER_PORT: "17072" });
    expect(plan.issuer?.port).toBe(17072);
    expect(plan.settings.AUTH_AUTHORITY).toBe(`http://127.0.0.1:17072/${T}/v2.0`);
  });

  it.each([
    `https://127.0.0.1:7072/${T}/v2.0`,
    `http://example.com:7072/${T}/v2.0`,
    `http://127.0.0.1:7072/${T}`,
    `http://127.0.0.1:7072/11111111-2222-4333-8444-555555555555/v2.0`,
  ])("keeps an authority that is not the local issuer's (%s)", (authority) => {
    expect(planStack({ ...keys, AUTH_AUTHORITY: authority }).issuer).toBeUndefined();
  });

  it("keeps the audience, tenants and administrators the developer set", () => {
    const other = "11111111-2222-4333-8444-555555555555";
    const plan = planStack({
      ...keys,
      AUTH_AUDIENCE: "api://mine",
      AUTH_ALLOWED_TENANTS: other,
      AUTH_ADMIN_PRINCIPALS: other,
    });
    expect(plan.settings).toMatchObject({
      AUTH_AUDIENCE: "api://mine",
      AUTH_ALLOWED_TENANTS: other,
      AUTH_ADMIN_PRINCIPALS: other,
    });
    expect(plan.issuer?.developerIsAdmin).toBe(false);
    const both = planStack({ ...keys, AUTH_ADMIN_PRINCIPALS: `${other}, ${developer.toUpperCase()}` });
    expect(both.issuer?.developerIsAdmin).toBe(true);
    // With the tenant written out: the local tenant's developer is; another tenant's is someone else.
    const named = planStack({ ...keys, AUTH_ADMIN_PRINCIPALS: `${T.toUpperCase()}/${developer}` });
    expect(named.issuer?.developerIsAdmin).toBe(true);
    const elsewhere = planStack({ ...keys, AUTH_ADMIN_PRINCIPALS: `${other}/${developer}` });
    expect(elsewhere.issuer?.developerIsAdmin).toBe(false);
  });
});

describe("the start summary", () => {
  const secrets = { file: undefined, generated: false, previous: 0 };

  it("under entra: the issuer, the developer, where the token is and how to get others; no keys", () => {
    const plan = planStack({ ...keys, FUNCTION_KEY: "fkey-123", MASTER_KEY: "mkey-456" });
    const text = formatSummary(
      plan,
      undefined,
      secrets,
      undefined,
      path.join(projectRoot(), ".local", "local.env"),
    );
    expect(text).toContain(`issuer           http://127.0.0.1:7072/${T}/v2.0`);
    expect(text).toContain(`${developer} (Owner at /: AUTH_ADMIN_PRINCIPALS)`);
    expect(text).toContain("TOKEN in .local/local.env");
    expect(text).toContain("npm run token");
    expect(text).toContain("npm run -s token -- <name> [--app] [--hours N]");
    expect(text).toContain(`-H "Authorization: Bearer $TOKEN"`);
    expect(text).not.toContain("fkey-123");
    expect(text).not.toContain("mkey-456");
  });

  it("under keys: the keys and key examples, no issuer", () => {
    const plan = planStack({ ...keys, AUTH_MODE: "keys", FUNCTION_KEY: "fkey-123", MASTER_KEY: "mkey-456" });
    const text = formatSummary(plan, undefined, secrets);
    expect(text).toContain("function key     fkey-123");
    expect(text).toContain("master key       mkey-456");
    expect(text).toContain("'x-functions-key: fkey-123'");
    expect(text).toContain("OpenID issuer    -");
    expect(text).not.toContain("Bearer");
    expect(text).not.toContain("npm run token");
  });

  it("says where the local Cosmos DB server keeps its data: on disk, or in memory only", () => {
    const onDisk = formatSummary(planStack({ ...keys }), undefined, secrets);
    expect(onDisk).toMatch(
      /Cosmos DB +https:\/\/127\.0\.0\.1:\d+\/ \(every write kept on disk under \.local\/ before it is answered\)/,
    );
    expect(onDisk).not.toMatch(/Cosmos DB .*in memory/);
    const inMemory = formatSummary(planStack({ ...keys, LOCAL_DATA_IN_MEMORY: "true" }), undefined, secrets);
    expect(inMemory).toContain("(in memory only, LOCAL_DATA_IN_MEMORY=true: gone when it stops)");
  });

  it("with the developer's own authority: where tokens come from", () => {
    const authority = "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0";
    const plan = planStack({ ...keys, AUTH_AUTHORITY: authority, AUTH_AUDIENCE: "api://mine" });
    const text = formatSummary(plan, undefined, secrets);
    expect(text).toContain(`an Entra ID token (AUTH_MODE=entra) from ${authority} for api://mine`);
    expect(text).not.toContain("npm run token");
  });
});
