import { randomUUID } from "node:crypto";
import { ServiceError, TwinServiceClient } from "../../client";
import { principalObjectId } from "../../dev/stand-ins/openid-issuer";
import {
  ADMIN,
  type EntraStack,
  LOCAL_SCOPE,
  mintingCredential,
  startEntraStack,
} from "../../test/client/entra-fixtures";
import { instanceId, rejection } from "../../test/client/fixtures";
import {
  RoleAssignmentProvider,
  type RoleAssignmentProviderInputs,
  type RoleAssignmentProviderOutputs,
} from "../src/role-assignment-provider";

// The RoleAssignment provider's operations against a host that takes Entra ID tokens, with an
// administrator's token in the stack config, as `pulumi config set --secret twin-resource-service:token` makes it.
let stack: EntraStack;
let provider: RoleAssignmentProvider;
let admin: TwinServiceClient;
beforeAll(async () => {
  stack = await startEntraStack();
  provider = new RoleAssignmentProvider();
  const config: Record<string, string> = {
    "twin-resource-service:endpoint": stack.host.baseUrl,
    "twin-resource-service:token": await stack.issuer.mint({ name: ADMIN }),
  };
  await provider.configure({
    config: { get: (key) => config[key], require: (key) => config[key] as string },
  });
  admin = new TwinServiceClient({
    endpoint: stack.host.baseUrl,
    credential: mintingCredential(stack.issuer, ADMIN),
    credentialScopes: LOCAL_SCOPE,
  });
});
afterAll(() => stack.stop());

const READER_ID = "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7";

function inputs(principal: string, changes: Partial<RoleAssignmentProviderInputs> = {}) {
  return {
    scope: instanceId("governed"),
    principalId: principalObjectId(principal),
    roleDefinitionName: "Reader",
    ...changes,
  } as RoleAssignmentProviderInputs;
}

async function created(principal: string, changes: Partial<RoleAssignmentProviderInputs> = {}) {
  const { inputs: checked } = await provider.check({}, inputs(principal, changes));
  return { checked, result: await provider.create(checked) };
}

describe("check", () => {
  it("names an unnamed assignment with a new GUID, and keeps the name it has", async () => {
    const first = await provider.check({}, inputs("a"));
    expect(first.inputs.name).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect((await provider.check({}, inputs("a"))).inputs.name).not.toBe(first.inputs.name);
    expect((await provider.check(first.inputs, inputs("a"))).inputs.name).toBe(first.inputs.name);
    const imported = `/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
    expect((await provider.check({}, inputs("a", { importId: imported }))).inputs.name).toBe(
      imported.split("/").at(-1),
    );
  });

  it("fails unless exactly one of roleDefinitionName and roleDefinitionId is given", async () => {
    const both = await provider.check({}, inputs("a", { roleDefinitionId: READER_ID }));
    expect(both.failures).toHaveLength(1);
    const neither = await provider.check({}, inputs("a", { roleDefinitionName: undefined }));
    expect(neither.failures).toHaveLength(1);
    expect((await provider.check({}, inputs("a"))).failures).toEqual([]);
  });
});

describe("create, read, delete", () => {
  it("creates the assignment; the id is its ARM id, the outputs the service's", async () => {
    const { checked, result } = await created("creator", { principalType: "ServicePrincipal" });
    expect(result.id).toBe(
      `${instanceId("governed")}/providers/Microsoft.Authorization/roleAssignments/${checked.name}`,
    );
    expect(result.outs).toEqual({
      scope: instanceId("governed"),
      name: checked.name,
      principalId: principalObjectId("creator"),
      principalType: "ServicePrincipal",
      roleDefinitionId: READER_ID,
      roleDefinitionName: "Reader",
    });
    expect(
      (await admin.roleAssignments.get(instanceId("governed"), checked.name as string)).principalId,
    ).toBe(principalObjectId("creator"));
  });

  it("does not take over an assignment that has the name already (412)", async () => {
    const name = randomUUID();
    await admin.roleAssignments.create("/authenticationProfiles", name, {
      principalId: principalObjectId("taken"),
      roleDefinitionName: "Reader",
    });
    const error = (await rejection(() =>
      provider.create(inputs("taken", { scope: "/authenticationProfiles", name })),
    )) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.status).toBe(412);
  });

  it("answers the service's 409 for the same principal and role at the scope under another name", async () => {
    await created("duplicate");
    await expect(created("duplicate")).rejects.toMatchObject({ status: 409, code: "RoleAssignmentExists" });
  });

  it("reads from the id alone, and answers no id once it was deleted outside Pulumi", async () => {
    const { checked, result } = await created("reread");
    expect(await provider.read(result.id)).toEqual({ id: result.id, props: result.outs });
    await admin.roleAssignments.delete(instanceId("governed"), checked.name as string);
    expect(await provider.read(result.id)).toEqual({});
  });

  it("refuses an id that is not a role assignment's", async () => {
    await expect(provider.read(instanceId("governed"))).rejects.toThrow(/not a role assignment id/);
  });

  it("delete removes it, and does not fail when it is already gone", async () => {
    const { checked, result } = await created("deleted");
    await provider.delete(result.id, result.outs);
    await expect(
      admin.roleAssignments.get(instanceId("governed"), checked.name as string),
    ).rejects.toMatchObject({
      status: 404,
    });
    await expect(provider.delete(result.id, result.outs)).resolves.toBeUndefined();
  });

  it("at the root scope, the id is /providers/…", async () => {
    const { checked, result } = await created("rooted", { scope: "/" });
    expect(result.id).toBe(`/providers/Microsoft.Authorization/roleAssignments/${checked.name}`);
    expect((await provider.read(result.id)).props?.scope).toBe("/");
    await provider.delete(result.id, result.outs);
  });

  it("with an import id, adopts the assignment the program describes, and refuses one that differs", async () => {
    const name = randomUUID();
    const made = await admin.roleAssignments.create("/authenticationProfiles/adopted", name, {
      principalId: principalObjectId("adoptee"),
      roleDefinitionName: "Contributor",
    });
    const program = inputs("adoptee", {
      scope: "/authenticationProfiles/adopted",
      roleDefinitionName: "contributor",
      importId: made.id,
    });
    expect((await provider.create(program)).id).toBe(made.id);
    await expect(provider.create({ ...program, roleDefinitionName: "Reader" })).rejects.toThrow(
      /differs from the program in roleDefinitionName/,
    );
  });
});

describe("diff", () => {
  const olds: RoleAssignmentProviderOutputs = {
    scope: instanceId("governed"),
    name: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
    principalId: principalObjectId("differ"),
    principalType: "User",
    roleDefinitionId: READER_ID,
    roleDefinitionName: "Reader",
  };
  const same = { ...inputs("differ"), name: olds.name };
  const diff = (changes: Partial<RoleAssignmentProviderInputs>) =>
    provider.diff("id", olds, { ...same, ...changes } as RoleAssignmentProviderInputs);

  it("sees no change in another spelling of the same scope, principal or role", async () => {
    for (const spelling of [
      {},
      { roleDefinitionName: "reader" },
      { roleDefinitionName: undefined, roleDefinitionId: "ACDD72A7-3385-48EF-BD42-F606FBA81AE7" },
      { roleDefinitionName: undefined, roleDefinitionId: READER_ID.toUpperCase() },
      { principalId: principalObjectId("differ").toUpperCase() },
      { scope: `${instanceId("governed").toLowerCase()}/` },
      { principalType: "User" as const },
      { name: undefined },
    ]) {
      expect(await diff(spelling)).toMatchObject({ changes: false, replaces: [] });
    }
  });

  it("replaces on a new scope, principal or role, creating the new one first", async () => {
    expect(await diff({ scope: instanceId("other") })).toEqual({
      changes: true,
      replaces: ["scope"],
      deleteBeforeReplace: false,
    });
    expect(await diff({ principalId: principalObjectId("other") })).toMatchObject({
      replaces: ["principalId"],
    });
    expect(await diff({ roleDefinitionName: "Owner" })).toMatchObject({
      replaces: ["roleDefinitionName"],
      deleteBeforeReplace: false,
    });
  });

  it("replaces on a new name or principalType by deleting first: the service allows one such assignment", async () => {
    expect(await diff({ name: randomUUID() })).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
    expect(await diff({ principalType: "Group" })).toMatchObject({
      replaces: ["principalType"],
      deleteBeforeReplace: true,
    });
  });

  it("changes the connection in place, reading the assignment through the new one", async () => {
    expect(await diff({ serviceEndpoint: "http://127.0.0.1:1" })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const { checked, result } = await created("moved");
    const updated = await provider.update(result.id, result.outs, {
      ...checked,
      serviceEndpoint: stack.host.baseUrl,
    });
    expect(updated.outs).toEqual({ ...result.outs, serviceEndpoint: stack.host.baseUrl });
  });
});
