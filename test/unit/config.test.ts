import { ConfigError, loadConfig } from "../../src/config";
import { thrown } from "../support/thrown";

const valid = {
  COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
  COSMOS_KEY: "key",
  AzureWebJobsStorage: "UseDevelopmentStorage=true",
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
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
    expect(problems.some((problem) => problem.startsWith("COSMOS_ENDPOINT:"))).toBe(true);
    expect(problems).toContain("AUTH_PROFILE_MAX_COUNT: Invalid input: expected number, received NaN");
  });

  it("names every missing required setting at once", () => {
    const problems = problemsOf({ COSMOS_ENDPOINT: valid.COSMOS_ENDPOINT });
    expect(problems).toHaveLength(2);
    expect(problems).toContain("SECRETS_ENCRYPTION_KEY: is required");
    expect(problems.find((problem) => problem.startsWith("AzureWebJobsStorage:"))).toMatch(/is required/);
  });

  it("takes the identity-based storage settings instead of a connection string", () => {
    const { AzureWebJobsStorage: _omitted, ...withoutConnectionString } = valid;
    expect(() =>
      loadConfig({ ...withoutConnectionString, AzureWebJobsStorage__accountName: "twinsstorage" }),
    ).not.toThrow();
    expect(
      problemsOf({ ...withoutConnectionString, AzureWebJobsStorage__accountName: "Not_An_Account" })[0],
    ).toMatch(/^AzureWebJobsStorage__accountName:/);
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
    expect(problems[0]).toMatch(/^COSMOS_DISABLE_TLS_VERIFICATION:/);
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
    expect(problemsOf(withoutKey)).toEqual(["SECRETS_ENCRYPTION_KEY: is required"]);
  });

  it.each([
    ["16 bytes", Buffer.alloc(16, 1).toString("base64")],
    ["33 bytes", Buffer.alloc(33, 1).toString("base64")],
    ["not base64", "this is not base64 at all!!"],
  ])("refuses a key of %s without echoing it", (_label, key) => {
    const problems = problemsOf({ ...valid, SECRETS_ENCRYPTION_KEY: key });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SECRETS_ENCRYPTION_KEY: must be 32 random bytes in base64/);
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
    expect(problems.map((problem) => problem.split(":")[0]).sort()).toEqual([
      "SERVICEBUS_HOST_SUFFIXES",
      "STORAGE_HOST_SUFFIXES",
    ]);
  });

  it("refuses a loopback switch that is not a boolean", () => {
    expect(problemsOf({ ...valid, ALLOW_LOOPBACK_ENDPOINTS: "yes" })[0]).toMatch(
      /^ALLOW_LOOPBACK_ENDPOINTS:/,
    );
  });
});
