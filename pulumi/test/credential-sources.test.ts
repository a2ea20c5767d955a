import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { TwinServiceClient } from "../../client";
import { principalObjectId } from "../../dev/stand-ins/openid-issuer";
import {
  ADMIN,
  type EntraStack,
  LOCAL_SCOPE,
  mintingCredential,
  startEntraStack,
} from "../../test/client/entra-fixtures";
import { ASSESSMENT_INPUT, SUBSCRIPTION_ID } from "../../test/client/fixtures";
import { type FakeAzureCli, fakeAzureCli, runNodeScript } from "../../test/support/fake-azure-cli";
import { AuthenticationProfileProvider } from "../src/authentication-profile-provider";
import { ENVIRONMENT } from "../src/service-connection";

// Where the providers take their credential, against a host that takes Entra ID tokens: a token in
// the stack config or the environment, or DefaultAzureCredential (here answered by a stand-in
// Azure CLI) for the configured scope; and which source wins.
const ROOT = path.join(__dirname, "..", "..");
let stack: EntraStack;
let cli: FakeAzureCli;
let scratch: string;
const savedEnvironment = { ...process.env };
beforeAll(async () => {
  stack = await startEntraStack();
  cli = fakeAzureCli();
  // Beside the project, as a Pulumi program would be: the serialized provider requires its
  // packages (@azure/identity, @azure/core-rest-pipeline) from node_modules above it.
  scratch = mkdtempSync(path.join(__dirname, ".serialized-credential-"));
});
afterEach(() => {
  process.env = { ...savedEnvironment };
});
afterAll(async () => {
  cli.remove();
  rmSync(scratch, { recursive: true, force: true });
  await stack.stop();
});

function clearConnectionEnvironment(): void {
  for (const name of Object.values(ENVIRONMENT)) delete process.env[name];
}

async function configuredProvider(config: Record<string, string>): Promise<AuthenticationProfileProvider> {
  const provider = new AuthenticationProfileProvider();
  const values: Record<string, string> = { "twin-resource-service:endpoint": stack.host.baseUrl };
  for (const [name, value] of Object.entries(config)) values[`twin-resource-service:${name}`] = value;
  await provider.configure({
    config: { get: (key) => values[key], require: (key) => values[key] as string },
  });
  return provider;
}

const adminToken = () => stack.issuer.mint({ name: ADMIN });
const profile = (name: string) => ({ authenticationProfileName: name, authenticationProfileContent: "{}" });

describe("a token", () => {
  it("in the stack config (twin-resource-service:token) carries the provider's calls", async () => {
    clearConnectionEnvironment();
    const provider = await configuredProvider({ token: await adminToken() });
    const created = await provider.create(profile("config-token"));
    expect(created.id).toBe("config-token");
    expect((await provider.read("config-token")).id).toBe("config-token");
    await provider.delete("config-token", created.outs);
  });

  it("in TWIN_SERVICE_TOKEN, with the endpoint in TWIN_SERVICE_ENDPOINT", async () => {
    clearConnectionEnvironment();
    process.env[ENVIRONMENT.endpoint] = stack.host.baseUrl;
    process.env[ENVIRONMENT.token] = await adminToken();
    const created = await new AuthenticationProfileProvider().create(profile("env-token"));
    expect(created.outs).toEqual(profile("env-token"));
  });

  it("in the stack config wins over a key in the environment", async () => {
    clearConnectionEnvironment();
    process.env[ENVIRONMENT.key] = "a-key-the-entra-host-refuses";
    const provider = await configuredProvider({ token: await adminToken() });
    expect((await provider.create(profile("config-first"))).id).toBe("config-first");
  });

  it("gives way to the resource's own serviceKey", async () => {
    const provider = await configuredProvider({ token: await adminToken() });
    await expect(
      provider.create({ ...profile("resource-key"), serviceKey: "resource-key" }),
    ).rejects.toMatchObject({ status: 401, code: "AuthenticationFailed" });
  });

  it("and a key both in the stack config: refused, neither is picked", async () => {
    const provider = await configuredProvider({ token: await adminToken(), key: "k" });
    await expect(provider.create(profile("both"))).rejects.toThrow(
      /Both a key and a token are set in the stack config/,
    );
  });

  it("that has expired: the service's 401 InvalidAuthenticationToken", async () => {
    const expired = await stack.issuer.mint({ name: ADMIN, now: Math.floor(Date.now() / 1000) - 7200 });
    const provider = await configuredProvider({ token: expired });
    await expect(provider.create(profile("expired"))).rejects.toMatchObject({
      status: 401,
      code: "InvalidAuthenticationToken",
    });
  });
});

describe("DefaultAzureCredential (the usual Azure environment)", () => {
  // As Pulumi runs a dynamic provider: serialized, then loaded in a process of its own, whose
  // environment names the endpoint and the scope and holds the (stand-in) Azure CLI.
  async function runSerializedProvider(name: string, environment: Record<string, string>): Promise<unknown> {
    // An instance, as pulumi.dynamic.Resource serializes its provider.
    const provider = new AuthenticationProfileProvider();
    const serialized = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
    const file = path.join(scratch, `${name}.js`);
    writeFileSync(file, serialized.text);
    const script = `
      const provider = require(${JSON.stringify(file)}).handler();
      provider
        .create({ authenticationProfileName: ${JSON.stringify(name)}, authenticationProfileContent: "{}" })
        .then((created) => console.log(JSON.stringify({ id: created.id })))
        .catch((error) => console.log(JSON.stringify({ status: error.status, code: error.code, message: error.message })));
    `;
    return runNodeScript(script, scratch, { ...cli.environment(), ...environment });
  }

  it("is asked for TWIN_SERVICE_SCOPE when no key or token is set, and its token carries the call", async () => {
    cli.setToken(await adminToken(), Date.now() + 3_600_000);
    const answer = await runSerializedProvider("from-azure-cli", {
      [ENVIRONMENT.endpoint]: stack.host.baseUrl,
      [ENVIRONMENT.scope]: LOCAL_SCOPE,
    });
    expect(answer).toEqual({ id: "from-azure-cli" });
    // The Azure CLI is asked for the resource of the scope (its /.default dropped).
    expect(cli.calls().at(-1)).toContain(`--resource ${LOCAL_SCOPE.replace(/\/\.default$/, "")}`);
  });

  it("a principal without a role gets the service's 403, its message intact (what Pulumi shows)", async () => {
    cli.setToken(await stack.issuer.mint({ name: "nobody" }), Date.now() + 3_600_000);
    const answer = await runSerializedProvider("refused", {
      [ENVIRONMENT.endpoint]: stack.host.baseUrl,
      [ENVIRONMENT.scope]: LOCAL_SCOPE,
    });
    expect(answer).toMatchObject({ status: 403, code: "AuthorizationFailed" });
    expect((answer as { message: string }).message).toContain(principalObjectId("nobody"));
  });

  it("works the same from the client (as built) directly", async () => {
    cli.setToken(await adminToken(), Date.now() + 3_600_000);
    const script = `
      const { DefaultAzureCredential } = require("@azure/identity");
      const { TwinServiceClient } = require(${JSON.stringify(path.join(ROOT, "dist", "client"))});
      const client = new TwinServiceClient({
        endpoint: process.env.ENDPOINT,
        credential: new DefaultAzureCredential(),
        credentialScopes: process.env.SCOPE,
      });
      client.profiles.put("dac", { authenticationProfileContent: "{}" })
        .then((profile) => console.log(JSON.stringify({ created: profile.created, by: profile.systemData.createdBy })));
    `;
    const answer = await runNodeScript(script, ROOT, {
      ...cli.environment(),
      ENDPOINT: stack.host.baseUrl,
      SCOPE: LOCAL_SCOPE,
    });
    expect(answer).toEqual({ created: true, by: principalObjectId(ADMIN) });
  });

  it("without a scope, nothing is configured: the error says what to set", async () => {
    clearConnectionEnvironment();
    const provider = await configuredProvider({});
    await expect(provider.create(profile("unconfigured"))).rejects.toThrow(
      /twin-resource-service:token.*twin-resource-service:scope/s,
    );
  });
});

describe("getClusterAssessmentOperation outside a Pulumi program", () => {
  it("takes its connection and a token from the environment", async () => {
    const ref = { resourceGroupName: "rg-tokens", projectName: "p1", assessmentName: "a1" };
    const admin = new TwinServiceClient({
      endpoint: stack.host.baseUrl,
      credential: mintingCredential(stack.issuer, ADMIN),
      credentialScopes: LOCAL_SCOPE,
      subscriptionId: SUBSCRIPTION_ID,
    });
    await admin.assessments.put(ref, ASSESSMENT_INPUT);
    clearConnectionEnvironment();
    process.env[ENVIRONMENT.endpoint] = stack.host.baseUrl;
    process.env[ENVIRONMENT.token] = await adminToken();
    process.env[ENVIRONMENT.subscriptionId] = SUBSCRIPTION_ID;
    expect(pulumi.runtime.hasEngine()).toBe(false);
    const { getClusterAssessmentOperation } = await import("../src");
    const result = await getClusterAssessmentOperation(ref);
    expect(result.details).toEqual(ASSESSMENT_INPUT.details);
  });
});
