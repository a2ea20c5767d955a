import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { projectRoot } from "../../dev/local-paths";
import { ensureLocalSecretsKey } from "../../dev/local-secrets-key";
import { loadLocalSettings, readSettingsFile } from "../../dev/local-settings";
import { planStack } from "../../dev/stack-plan";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import { StartupError } from "../../dev/startup-error";
import { curlExample, shellQuote } from "../../dev/summary";
import { loadConfig } from "../../src/config";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// What the launcher decides before it starts anything: ports, which stand-ins run, the settings.

afterAll(removeTempDirs);

const keys = { FUNCTION_KEY: "f", MASTER_KEY: "m" };

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
    });
    expect(plan.ports.map(({ port }) => port)).toEqual([1, 2, 3, 4, 5]);

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
    });
    expect(Buffer.from(first.SECRETS_ENCRYPTION_KEY ?? "", "base64")).toHaveLength(32);
    const second: Record<string, string> = { LOCAL_DATA_DIR: folder };
    expect(ensureLocalSecretsKey(second).generated).toBe(false);
    expect(second.SECRETS_ENCRYPTION_KEY).toBe(first.SECRETS_ENCRYPTION_KEY);
  });

  it("is left alone when the settings bring one", () => {
    const settings = { LOCAL_DATA_DIR: dataDir(), SECRETS_ENCRYPTION_KEY: "given" };
    expect(ensureLocalSecretsKey(settings)).toEqual({ file: undefined, generated: false });
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

describe("the curl example", () => {
  it("quotes values for the shell only when needed", () => {
    expect(shellQuote("http://127.0.0.1:7071/x")).toBe("http://127.0.0.1:7071/x");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it("sends the function key and a body whose content is a JSON object string", () => {
    expect(curlExample("http://127.0.0.1:7071", "key")).toBe(
      `curl -X PUT http://127.0.0.1:7071/authenticationProfiles/example -H 'x-functions-key: key' ` +
        `-H 'Content-Type: application/json' -d '{"authenticationProfileContent":` +
        `"{\\"AllowDBUserOverride\\":\\"1\\",\\"Client_ID\\":\\"ExampleClientID\\",\\"App_ID\\":\\"example\\"}"}'`,
    );
  });
});
