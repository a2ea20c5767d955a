import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { ENDPOINT_INPUT, instanceId, SECRETS } from "../../test/client/fixtures";
import { FUNCTION_KEY, MASTER_KEY, startTestHost, type TestHost } from "../../test/support/test-host";
import { AuthenticationProfileProvider } from "../src/authentication-profile-provider";
import { QueueEndpointProvider } from "../src/queue-endpoint-provider";
import { RoleAssignmentProvider } from "../src/role-assignment-provider";
import { ENVIRONMENT } from "../src/service-connection";

// Pulumi serializes a dynamic provider into the state and runs it, deserialized, in its own
// process. This does the same: serializeFunction as pulumi.dynamic.Resource calls it, then the
// text is loaded with Node's own loader and run against the local stack.
const providers = {
  AuthenticationProfileProvider: () => new AuthenticationProfileProvider(),
  QueueEndpointProvider: () => new QueueEndpointProvider(),
  RoleAssignmentProvider: () => new RoleAssignmentProvider(),
};

let host: TestHost;
let scratch: string;
const savedEnvironment = { ...process.env };
beforeAll(async () => {
  host = await startTestHost();
  // Beside the project, as a Pulumi program would be: the serialized code requires the client's
  // dependencies (@azure/core-rest-pipeline), which resolve from node_modules above it.
  scratch = mkdtempSync(path.join(__dirname, ".serialized-provider-"));
  // Present while serializing, so a provider that read them eagerly would carry them in its text.
  process.env[ENVIRONMENT.endpoint] = host.baseUrl;
  process.env[ENVIRONMENT.key] = FUNCTION_KEY;
});
afterAll(async () => {
  process.env = savedEnvironment;
  rmSync(scratch, { recursive: true, force: true });
  await host.stop();
});

async function serialize(provider: object): Promise<pulumi.runtime.SerializedFunction> {
  return pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
}

/** Loads serialized provider text as the dynamic-provider host does (a module exporting `handler`). */
function load<T>(text: string, name: string): T {
  const file = path.join(scratch, `${name}.js`);
  writeFileSync(file, text);
  const module = createRequire(file)(file) as { handler: () => T };
  return module.handler();
}

describe.each(Object.entries(providers))("%s", (name, make) => {
  it("serializes, capturing no secret", async () => {
    const serialized = await serialize(make());
    expect(serialized.containsSecrets).toBe(false);
    for (const secret of SECRETS) expect(serialized.text).not.toContain(secret);
    expect(serialized.text).not.toContain(host.baseUrl);
    // Everything it needs travels as code: nothing it would have to require from the program.
    expect(serialized.text).not.toMatch(/require\(["'][./]/);
  });

  it("has every provider method after deserialization", async () => {
    const loaded = load<Record<string, unknown>>((await serialize(make())).text, `${name}-methods`);
    for (const method of ["configure", "diff", "create", "read", "update", "delete"]) {
      expect(typeof loaded[method]).toBe("function");
    }
  });
});

describe("a deserialized provider runs against the service", () => {
  it("AuthenticationProfile: create, read, update, delete, and a 404 read", async () => {
    const provider = load<AuthenticationProfileProvider>(
      (await serialize(new AuthenticationProfileProvider())).text,
      "profile-run",
    );
    const inputs = { authenticationProfileName: "serialized", authenticationProfileContent: "{}" };
    const created = await provider.create(inputs);
    expect(created.id).toBe("serialized");
    expect((await provider.read(created.id)).props?.authenticationProfileContent).toBe("{}");
    const updated = await provider.update(created.id, created.outs, {
      ...inputs,
      authenticationProfileContent: '{"a":"1"}',
    });
    expect(updated.outs.authenticationProfileContent).toBe('{"a":"1"}');
    await provider.delete(created.id, updated.outs);
    // Recognising the service's 404 relies on the error class surviving serialization.
    expect(await provider.read(created.id)).toEqual({});
  });

  it("a refusal keeps the service's message and code (the provider host reports e.message)", async () => {
    const provider = load<AuthenticationProfileProvider>(
      (await serialize(new AuthenticationProfileProvider())).text,
      "profile-refusal",
    );
    const inputs = { authenticationProfileName: "twice", authenticationProfileContent: "{}" };
    await provider.create(inputs);
    const error = await provider.create(inputs).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 412, code: "PreconditionFailed" });
    expect((error as Error).message).toMatch(/^PreconditionFailed: ./);
  });

  it("RoleAssignment: check names it with a GUID, create, read, delete (the master key under keys)", async () => {
    const provider = load<RoleAssignmentProvider>(
      (await serialize(new RoleAssignmentProvider())).text,
      "role-assignment-run",
    );
    const { inputs } = await provider.check(
      {},
      {
        scope: "/authenticationProfiles",
        principalId: "6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f",
        roleDefinitionName: "Reader",
        serviceKey: MASTER_KEY,
      },
    );
    expect(inputs.name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const created = await provider.create(inputs);
    expect(created.outs.roleDefinitionName).toBe("Reader");
    expect((await provider.read(created.id, created.outs)).props?.name).toBe(inputs.name);
    await provider.delete(created.id, created.outs);
    expect(await provider.read(created.id, created.outs)).toEqual({});
  });

  it("QueueEndpoint: check names it, create keeps the real secrets, delete removes it", async () => {
    const provider = load<QueueEndpointProvider>(
      (await serialize(new QueueEndpointProvider())).text,
      "endpoint-run",
    );
    const checked = await provider.check(
      {},
      { ...ENDPOINT_INPUT, twinsInstanceId: instanceId("serialized"), logicalName: "orders" },
    );
    expect(checked.inputs.name).toMatch(/^orders-[a-z0-9]{7}$/);
    const created = await provider.create(checked.inputs);
    expect(created.outs.queuePrimaryConnectionString).toBe(ENDPOINT_INPUT.queuePrimaryConnectionString);
    await provider.delete(created.id, created.outs);
    expect(await provider.read(created.id)).toEqual({});
  });
});
