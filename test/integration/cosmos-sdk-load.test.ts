import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import { sharedStandIns } from "../support/stand-ins-env";

// The Cosmos DB SDK requires the Key Vault keys SDK when it loads (for client-side encryption, which
// the service does not use); the service makes that module load on first read instead
// (src/store/cosmos-client.ts, src/common/load-on-first-read.ts). Jest's module registry ignores
// Node's module cache, so each check runs the built code (global setup builds dist/) in a fresh node,
// asynchronously: the shared Cosmos DB server may run in this very process.
const ROOT = path.join(__dirname, "..", "..");
const DIST = path.join(ROOT, "dist");

/** Runs `script` (CommonJS; `dist`, `keyVaultFiles()` and `print()` in scope) in a fresh node; what it printed. */
async function run(script: string): Promise<Record<string, unknown>> {
  const probe = `
const dist = ${JSON.stringify(DIST)};
/** The Key Vault keys SDK's files loaded so far (its index may be the stand-in). */
const keyVaultFiles = () => Object.keys(require.cache).filter((file) => file.includes("/node_modules/@azure/keyvault-keys/"));
let printed;
const print = (value) => { printed = value; };
(async () => {
${script}
})().then(() => { process.stdout.write(JSON.stringify(printed)); process.exit(0); }, (error) => { console.error(error); process.exit(1); });`;
  const { cosmosEndpoint } = sharedStandIns();
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", probe], {
    cwd: ROOT,
    env: {
      ...process.env,
      COSMOS_ENDPOINT: cosmosEndpoint,
      COSMOS_KEY: COSMOS_EMULATOR_KEY,
      COSMOS_DISABLE_TLS_VERIFICATION: "true",
      AzureWebJobsStorage: "UseDevelopmentStorage=true",
      SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
      AUTH_MODE: "keys",
    },
    encoding: "utf8",
    timeout: 30_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const SERVICES = `
const { createServices, disposeServices } = require(dist + "/src/services");
const services = createServices(require(dist + "/src/config").loadConfig());`;

describe("the Cosmos DB SDK's load", () => {
  it("leaves the Key Vault keys SDK unloaded, and the client still reaches Cosmos DB", async () => {
    const result = await run(`${SERVICES}
const client = services.cosmos;
const loaded = keyVaultFiles().length;
const account = await client.getDatabaseAccount();
print({ loaded, after: keyVaultFiles().length, writable: account.resource.writableLocations.length >= 0 });
await disposeServices(services);`);
    // The stand-in only: none of the SDK's own modules.
    expect(result).toEqual({ loaded: 1, after: 1, writable: true });
  });

  it("the Cosmos DB SDK's key resolver still gets the real KeyClient: the first read loads the SDK", async () => {
    const result = await run(`${SERVICES}
services.cosmos;
const { AzureKeyVaultEncryptionKeyResolver } = require("@azure/cosmos");
const credential = { getToken: async () => { throw new Error("no token here"); } };
const resolver = new AzureKeyVaultEncryptionKeyResolver(credential);
const before = keyVaultFiles().length;
// A key id the resolver refuses after it has made its KeyClient: no request leaves the process.
const failure = await resolver.unwrapKey("https://vault.example/keys", "RSA-OAEP", Buffer.alloc(8)).catch((error) => error.message);
print({ before, after: keyVaultFiles().length, failure, keyClient: typeof require("@azure/keyvault-keys").KeyClient });`);
    expect(result.before).toBe(1);
    expect(result.after).toBeGreaterThan(20);
    expect(result.keyClient).toBe("function");
    expect(result.failure).toMatch(/^Failed to unwrap key: /);
    expect(result.failure).not.toMatch(/not a constructor|undefined/);
  });

  it("the Key Vault keys SDK loaded first (the stand-in too late): the client works as published", async () => {
    const result = await run(`
const published = require("@azure/keyvault-keys");
${SERVICES}
const account = await services.cosmos.getDatabaseAccount();
print({ same: require("@azure/keyvault-keys") === published, ok: Array.isArray(account.resource.readableLocations) });
await disposeServices(services);`);
    expect(result).toEqual({ same: true, ok: true });
  });
});
