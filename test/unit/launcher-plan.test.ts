import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { projectRoot } from "../../dev/local-paths";
import { ensureLocalSecretsKey, rotateLocalSecretsKey } from "../../dev/local-secrets-key";
import { loadLocalSettings, readSettingsFile } from "../../dev/local-settings";
import { planStack } from "../../dev/stack-plan";
import { principalObjectId, LOCAL_TENANT_ID as T } from "../../dev/stand-ins/openid-issuer";
import { loadConfig } from "../../src/config";
import { secretSealer } from "../../src/secrets/secret-keys";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// What the launcher decides before it starts anything: ports, which stand-ins run, the settings.

afterAll(removeTempDirs);

const keys = { FUNCTION_KEY: "f", MASTER_KEY: "m" };
const developer = principalObjectId("developer");
const sample = () => readSettingsFile(path.join(projectRoot(), "local.settings.sample.json"));
const file = (content: string) => {
  const name = path.join(tempDir("launcher-plan-"), "settings.json");
  writeFileSync(name, content);
  return name;
};

describe("planStack", () => {
  it("runs every stand-in on the default ports or the moved ones", () => {
    const plan = planStack({ ...keys });
    expect(plan.ports.map(({ variable, port }) => `${variable}=${port}`).join(" ")).toBe(
      "PORT=7071 AZURITE_BLOB_PORT=10000 AZURITE_QUEUE_PORT=10001 COSMOS_PORT=8081 SERVICEBUS_PORT=5672 ISSUER_PORT=7072 SERVICEBUS_TLS_PORT=5671 AZURITE_BLOB_TLS_PORT=10443 IDENTITY_PORT=7073",
    );
    expect(plan.settings).toMatchObject({
      COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
      ALLOW_LOOPBACK_ENDPOINTS: "true", // the stand-ins are on loopback
      SERVICEBUS_SUBSCRIPTIONS: "example-topic/example-sub",
    });
    expect(plan.settings.AzureWebJobsStorage).toContain(
      "QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1",
    );
    const moved = Object.fromEntries(plan.ports.map(({ variable }, index) => [variable, String(index + 1)]));
    const movedPlan = planStack({ ...keys, ...moved, SERVICEBUS_SUBSCRIPTIONS: "o/a" });
    expect(movedPlan.ports.map(({ port }) => port)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(movedPlan.settings).toMatchObject({
      COSMOS_ENDPOINT: "https://127.0.0.1:4/",
      SERVICEBUS_SUBSCRIPTIONS: "o/a,example-topic/example-sub",
    });
  });

  it("uses configured storage and Cosmos DB instead of the stand-ins (not for UseDevelopmentStorage=true)", () => {
    const storage = planStack({
      ...keys,
      AzureWebJobsStorage: "DefaultEndpointsProtocol=https;AccountName=a",
    });
    expect(storage.azurite).toBeUndefined();
    expect(storage.ports.map(({ variable }) => variable)).not.toContain("AZURITE_BLOB_PORT");
    expect(planStack({ ...keys, AzureWebJobsStorage__accountName: "a" }).azurite).toBeUndefined();
    const dev = planStack({
      ...keys,
      AzureWebJobsStorage: "UseDevelopmentStorage=true",
      AZURITE_BLOB_PORT: "12",
    });
    expect(dev.settings.AzureWebJobsStorage).toContain("BlobEndpoint=http://127.0.0.1:12/devstoreaccount1");
    const cosmos = planStack({
      ...keys,
      COSMOS_ENDPOINT: "https://a.documents.azure.com:443/",
      COSMOS_KEY: "k",
    });
    expect(cosmos.cosmos).toBeUndefined();
    expect(cosmos.settings.COSMOS_DISABLE_TLS_VERIFICATION).toBeUndefined();
  });

  it("refuses, in one line naming the variables: a bad port, a port twice, missing keys", () => {
    for (const value of ["abc", "0", "70000", "80.5"]) {
      expect(() => planStack({ ...keys, PORT: value })).toThrow(
        "PORT must be a port number from 1 to 65535.",
      );
    }
    expect(() => planStack({ ...keys, PORT: "7072" })).toThrow(
      "PORT and ISSUER_PORT are both 7072; give each its own port.",
    );
    expect(() => planStack({})).toThrow(/^FUNCTION_KEY and MASTER_KEY must be set/);
  });
});

it("reads a Functions settings file, the environment winning; refuses one that is not JSON or is encrypted", () => {
  const values = file('{"IsEncrypted":false,"Values":{"A":"1","B":2,"C":true}}');
  expect(loadLocalSettings({ LOCAL_SETTINGS_FILE: values, C: "env" }).values).toMatchObject({
    A: "1",
    B: "2",
    C: "env",
  });
  expect(() => readSettingsFile(file("{ // comment\n}"))).toThrow(/^settings\.json is not valid JSON/);
  expect(() => readSettingsFile(file('{"IsEncrypted":true,"Values":{}}'))).toThrow(/encrypted/);
});

describe("the local secrets key and npm run rotate-key", () => {
  // The committed sample's settings, which the service must accept.
  function started(folder: string, extra: Record<string, string> = {}) {
    const settings: Record<string, string> = { ...sample(), ...extra, LOCAL_DATA_DIR: folder };
    const key = ensureLocalSecretsKey(settings);
    return { key, settings, sealer: secretSealer(loadConfig(planStack(settings).settings)) };
  }

  it("rotates: a plain restart seals with the new key and opens what every earlier key, and the settings' own, sealed", () => {
    const folder = tempDir("rotate-key-");
    const sealedFirst = started(folder).sealer.seal("first secret", "endpoint-1");
    rotateLocalSecretsKey({ LOCAL_DATA_DIR: folder });
    const sealedSecond = started(folder).sealer.seal("second secret", "endpoint-2");
    expect(rotateLocalSecretsKey({ LOCAL_DATA_DIR: folder }).previous).toBe(2);
    const third = started(folder, {
      SECRETS_ENCRYPTION_PREVIOUS_KEYS: Buffer.alloc(32, 9).toString("base64"),
    });
    expect(third.key.previous).toBe(2);
    expect(third.sealer.open(sealedFirst, "endpoint-1")).toBe("first secret");
    expect(third.sealer.open(sealedSecond, "endpoint-2")).toBe("second secret");
    expect(third.settings.SECRETS_ENCRYPTION_PREVIOUS_KEYS?.split(",")).toHaveLength(3);
  });

  it("refuses damaged key files, no key yet, or a key from the settings, which it leaves alone", () => {
    const folder = tempDir("rotate-key-");
    writeFileSync(path.join(folder, "secrets-encryption-key"), "not a key\n");
    expect(() => ensureLocalSecretsKey({ LOCAL_DATA_DIR: folder })).toThrow(
      /secrets-encryption-key does not hold/,
    );
    const other = tempDir("rotate-key-");
    expect(() => rotateLocalSecretsKey({ LOCAL_DATA_DIR: other })).toThrow(/npm start makes one/);
    const given = { LOCAL_DATA_DIR: other, SECRETS_ENCRYPTION_KEY: "k" };
    expect(() => rotateLocalSecretsKey(given)).toThrow(/SECRETS_ENCRYPTION_KEY is set/);
    expect(ensureLocalSecretsKey(given)).toEqual({ file: undefined, generated: false, previous: 0 });
    started(other);
    writeFileSync(path.join(other, "secrets-encryption-previous-keys"), "not a key\n");
    expect(() => ensureLocalSecretsKey({ LOCAL_DATA_DIR: other })).toThrow(
      /secrets-encryption-previous-keys does not hold/,
    );
  });
});

describe("who may call the local stack", () => {
  it("is Entra ID tokens from the local issuer by default, the developer an administrator if named", () => {
    const plan = planStack({ ...keys, AUTH_MODE: "  ", ISSUER_PORT: "17072" });
    const authority = `http://127.0.0.1:17072/${T}/v2.0`;
    expect(plan.settings).toMatchObject({
      AUTH_MODE: "entra",
      AUTH_AUTHORITY: authority,
      AUTH_AUDIENCE: "00000000-0000-4000-8000-0000000a0d1e,api://00000000-0000-4000-8000-0000000a0d1e",
      AUTH_ALLOWED_TENANTS: T,
      AUTH_ADMIN_PRINCIPALS: developer,
    });
    expect(plan.issuer).toMatchObject({ port: 17072, authority, developerIsAdmin: true });
    const other = "11111111-2222-4333-8444-555555555555";
    const admin = (principals: string) =>
      planStack({ ...keys, AUTH_ADMIN_PRINCIPALS: principals }).issuer?.developerIsAdmin;
    expect(admin(other)).toBe(false);
    expect(admin(`${other}, ${developer.toUpperCase()}`)).toBe(true);
    expect(admin(`${T.toUpperCase()}/${developer}`)).toBe(true);
    expect(admin(`${other}/${developer}`)).toBe(false);
  });

  it("is the keys, or the developer's own authority, with no local issuer; an earlier start's local one is replaced", () => {
    for (const settings of <Record<string, string>[]>[
      { AUTH_MODE: "keys", ISSUER_PORT: "x", PORT: "7072" },
      { AUTH_AUTHORITY: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0" },
    ]) {
      const plan = planStack({ ...keys, ...settings });
      expect(plan.issuer).toBeUndefined();
      expect(plan.ports.map(({ variable }) => variable)).not.toContain("ISSUER_PORT");
      expect(plan.settings).not.toHaveProperty("AUTH_AUDIENCE");
    }
    for (const stale of [`http://localhost:7072/${T.toUpperCase()}/v2.0/`, ` http://[::1]:1/${T}/v2.0 `]) {
      expect(planStack({ ...keys, AUTH_AUTHORITY: stale }).settings.AUTH_AUTHORITY).toBe(
        `http://127.0.0.1:7072/${T}/v2.0`,
      );
    }
    for (const other of [`https://127.0.0.1:7072/${T}/v2.0`, `http://example.com:7072/${T}/v2.0`]) {
      expect(planStack({ ...keys, AUTH_AUTHORITY: other }).issuer).toBeUndefined();
    }
  });
});
