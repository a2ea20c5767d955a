import * as pulumi from "@pulumi/pulumi";
import type { MockResourceArgs } from "@pulumi/pulumi/runtime";
import {
  connectionString,
  DEAD_LETTER,
  ENDPOINT_IDENTITY_ID,
  ENDPOINT_INPUT,
  IDENTITY_ENDPOINT_INPUT,
  instanceId,
  SAMPLE_PROFILE_CONTENT,
} from "../../test/client/fixtures";
import { resolved } from "./resolved";

// The resources' shapes as a Pulumi program sees them, with the engine mocked: output names, secrets,
// `get` and the `import` option. Each registration is recorded with its options as the engine gets them.
interface Registration {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  id: string | undefined;
  additionalSecretOutputs: string[];
}

const registrations: Registration[] = [];
const secretOptions = new Map<string, string[]>();

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args: MockResourceArgs) => {
        registrations.push({
          type: args.type,
          name: args.name,
          inputs: args.inputs,
          id: args.id,
          additionalSecretOutputs: secretOptions.get(args.name) ?? [],
        });
        // The engine answers with the provider's outputs; here, the inputs as they were sent.
        return { id: args.id || `${args.name}-id`, state: args.inputs };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
  // The mocks do not see resource options: record additionalSecretOutputs from the requests.
  const monitor = pulumi.runtime.getMonitor() as unknown as Record<string, (...args: unknown[]) => unknown>;
  const register = monitor.registerResource?.bind(monitor) as (
    request: unknown,
    callback: unknown,
  ) => unknown;
  monitor.registerResource = (request: unknown, callback: unknown) => {
    const { getName, getAdditionalsecretoutputsList } = request as Record<string, () => never>;
    secretOptions.set(String(getName?.call(request)), getAdditionalsecretoutputsList?.call(request) ?? []);
    return register(request, callback);
  };
});

// Loaded after setMocks, as Pulumi's testing guide does, so the resources see the mocked runtime.
async function pkg() {
  return import("../src");
}

const registered = (name: string) => registrations.find((registration) => registration.name === name);

describe("AuthenticationProfile", () => {
  it("has the seed's outputs and the resource type of the package", async () => {
    const { AuthenticationProfile } = await pkg();
    const profile = new AuthenticationProfile("warehouse", {
      authenticationProfileName: "warehouse-sso",
      authenticationProfileContent: SAMPLE_PROFILE_CONTENT,
    });
    expect(await resolved(profile.id)).toBe("warehouse-id");
    expect(await resolved(profile.authenticationProfileName)).toBe("warehouse-sso");
    expect(await resolved(profile.authenticationProfileContent)).toBe(SAMPLE_PROFILE_CONTENT);
    expect(registered("warehouse")?.type).toBe(
      "pulumi-nodejs:dynamic/twin-resource-service:AuthenticationProfile",
    );
  });

  it("carries its provider serialized, and a given service key only as a secret", async () => {
    const { AuthenticationProfile } = await pkg();
    const profile = new AuthenticationProfile("with-key", {
      authenticationProfileName: "with-key",
      authenticationProfileContent: "{}",
      serviceEndpoint: "http://127.0.0.1:7071",
      serviceKey: "plain-service-key",
    });
    await resolved(profile.id);
    const inputs = registered("with-key")?.inputs ?? {};
    expect(typeof inputs.__provider).toBe("string");
    expect(inputs.__provider).not.toContain("plain-service-key");
    expect(isSerializedSecret(inputs.serviceKey)).toBe(true);
    expect(registered("with-key")?.additionalSecretOutputs).toEqual(["serviceKey"]);
  });

  it("get reads an existing profile by id, with the state given", async () => {
    const { AuthenticationProfile } = await pkg();
    const existing = AuthenticationProfile.get("existing", "warehouse-sso", {
      authenticationProfileName: "warehouse-sso",
    });
    expect(await resolved(existing.id)).toBe("warehouse-sso");
    expect(await resolved(existing.authenticationProfileName)).toBe("warehouse-sso");
    expect(registered("existing")?.id).toBe("warehouse-sso");
  });

  it("the import option reaches the provider as importId (dynamic providers cannot serve the engine's import)", async () => {
    const { AuthenticationProfile } = await pkg();
    const imported = new AuthenticationProfile(
      "imported",
      { authenticationProfileName: "legacy", authenticationProfileContent: "{}" },
      { import: "legacy" },
    );
    await resolved(imported.id);
    expect(registered("imported")?.inputs.importId).toBe("legacy");
    // No import id goes to the engine, so it plans a create, which the provider turns into adoption.
    expect(registered("imported")?.id).toBeFalsy();
  });
});

describe("QueueEndpoint", () => {
  it("has the seed's outputs, with every secret marked secret", async () => {
    const { QueueEndpoint } = await pkg();
    const endpoint = new QueueEndpoint("orders", {
      ...ENDPOINT_INPUT,
      twinsInstanceId: instanceId("factory"),
    });
    expect(await resolved(endpoint.twinsInstanceId)).toBe(instanceId("factory"));
    expect(await resolved(endpoint.queuePrimaryConnectionString)).toBe(
      ENDPOINT_INPUT.queuePrimaryConnectionString,
    );
    for (const secret of [
      endpoint.queuePrimaryConnectionString,
      endpoint.queueSecondaryConnectionString,
      endpoint.deadLetterStorageSecret,
    ]) {
      expect(await pulumi.isSecret(secret)).toBe(true);
    }
    expect(await pulumi.isSecret(endpoint.twinsInstanceId)).toBe(false);
    expect(registered("orders")?.type).toBe("pulumi-nodejs:dynamic/twin-resource-service:QueueEndpoint");
    expect(registered("orders")?.additionalSecretOutputs).toEqual([
      "queuePrimaryConnectionString",
      "queueSecondaryConnectionString",
      "deadLetterStorageSecret",
      "serviceKey",
    ]);
  });

  it("passes its resource name for auto-naming and leaves name to the provider's check", async () => {
    const { QueueEndpoint } = await pkg();
    const endpoint = new QueueEndpoint("unnamed", {
      ...ENDPOINT_INPUT,
      twinsInstanceId: instanceId("factory"),
    });
    await resolved(endpoint.id);
    expect(registered("unnamed")?.inputs).toMatchObject({ logicalName: "unnamed" });
    expect(registered("unnamed")?.inputs.name).toBeUndefined();
  });

  it("get reads by the full resource path; import passes it as importId", async () => {
    const { QueueEndpoint } = await pkg();
    const id = `${instanceId("factory")}/endpoints/orders`;
    const existing = QueueEndpoint.get("existing-endpoint", id);
    expect(await resolved(existing.id)).toBe(id);
    const imported = new QueueEndpoint(
      "imported-endpoint",
      {
        twinsInstanceId: instanceId("factory"),
        queuePrimaryConnectionString: connectionString("a2V5"),
        queueSecondaryConnectionString: connectionString("a2V5"),
        deadLetterStorageSecret: DEAD_LETTER,
      },
      { import: id },
    );
    await resolved(imported.id);
    expect(registered("imported-endpoint")?.inputs.importId).toBe(id);
  });
});

describe("QueueEndpoint, identity-based", () => {
  it("takes the kind and its fields as plain inputs: nothing of it is secret", async () => {
    const { QueueEndpoint } = await pkg();
    const identity = { type: "UserAssigned" as const, userAssignedIdentity: ENDPOINT_IDENTITY_ID };
    const endpoint = new QueueEndpoint("by-identity", {
      ...IDENTITY_ENDPOINT_INPUT,
      identity,
      twinsInstanceId: instanceId("factory"),
    });
    expect(await resolved(endpoint.authenticationType)).toBe("IdentityBased");
    expect(await resolved(endpoint.endpointUri)).toBe(IDENTITY_ENDPOINT_INPUT.endpointUri);
    expect(await resolved(endpoint.identity)).toEqual(identity);
    for (const output of [
      endpoint.endpointUri,
      endpoint.entityPath,
      endpoint.deadLetterUri,
      endpoint.identity,
    ] as pulumi.Output<unknown>[]) {
      expect(await pulumi.isSecret(output)).toBe(false);
    }
    const inputs = registered("by-identity")?.inputs ?? {};
    expect(inputs).toMatchObject({
      authenticationType: "IdentityBased",
      endpointUri: IDENTITY_ENDPOINT_INPUT.endpointUri,
      entityPath: IDENTITY_ENDPOINT_INPUT.entityPath,
      deadLetterUri: IDENTITY_ENDPOINT_INPUT.deadLetterUri,
      identity,
    });
    expect(inputs.queuePrimaryConnectionString).toBeUndefined();
  });

  it("leaves a key-based endpoint's authenticationType out when the program does", async () => {
    const { QueueEndpoint } = await pkg();
    const endpoint = new QueueEndpoint("by-key", {
      ...ENDPOINT_INPUT,
      twinsInstanceId: instanceId("factory"),
    });
    await resolved(endpoint.id);
    expect(registered("by-key")?.inputs.authenticationType).toBeUndefined();
  });
});

describe("RoleAssignment", () => {
  it("has the assignment's outputs, the package's type, and a given service key only as a secret", async () => {
    const { RoleAssignment } = await pkg();
    const assignment = new RoleAssignment("auditors", {
      scope: instanceId("factory"),
      principalId: "6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f",
      roleDefinitionName: "Reader",
      serviceKey: "plain-master-key",
    });
    expect(await resolved(assignment.scope)).toBe(instanceId("factory"));
    expect(await resolved(assignment.roleDefinitionName)).toBe("Reader");
    expect(registered("auditors")?.type).toBe("pulumi-nodejs:dynamic/twin-resource-service:RoleAssignment");
    expect(registered("auditors")?.additionalSecretOutputs).toEqual(["serviceKey"]);
    expect(isSerializedSecret(registered("auditors")?.inputs.serviceKey)).toBe(true);
    // The name is left to the provider's check, which makes a GUID once.
    expect(registered("auditors")?.inputs.name).toBeUndefined();
  });

  it("get reads by id; import passes it as importId", async () => {
    const { RoleAssignment } = await pkg();
    const id = "/providers/Microsoft.Authorization/roleAssignments/3f2504e0-4f89-41d3-9a0c-0305e82c3301";
    expect(await resolved(RoleAssignment.get("existing-assignment", id).id)).toBe(id);
    const imported = new RoleAssignment(
      "imported-assignment",
      { scope: "/", principalId: "6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f", roleDefinitionName: "Owner" },
      { import: id },
    );
    await resolved(imported.id);
    expect(registered("imported-assignment")?.inputs.importId).toBe(id);
  });
});

function isSerializedSecret(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[pulumi.runtime.specialSigKey] === pulumi.runtime.specialSecretSig
  );
}
