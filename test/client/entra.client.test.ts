import { randomUUID } from "node:crypto";
import { ServiceError, TwinServiceClient } from "../../client";
import { principalObjectId } from "../../dev/stand-ins/openid-issuer";
import {
  ADMIN,
  type EntraStack,
  LOCAL_SCOPE,
  mintingCredential,
  type RecordingCredential,
  startEntraStack,
} from "./entra-fixtures";
import { collect, instanceId, rejection, SAMPLE_PROFILE_CONTENT } from "./fixtures";

// The client with a TokenCredential against a host that takes Entra ID tokens (AUTH_MODE=entra),
// the tokens minted by the local OpenID issuer: what each role may do, the errors of a refused or
// unauthenticated call, token refresh, and role assignments made through the client.
let stack: EntraStack;
beforeAll(async () => {
  stack = await startEntraStack();
});
afterAll(() => stack.stop());

function clientAs(credential: RecordingCredential): TwinServiceClient {
  return new TwinServiceClient({
    endpoint: stack.host.baseUrl,
    credential,
    credentialScopes: LOCAL_SCOPE,
    retry: { defaultDelayMs: 20 },
  });
}

const as = (name: string) => clientAs(mintingCredential(stack.issuer, name));

describe("a credential", () => {
  it("carries an administrator's calls: create, read, change, list, delete, stamped with its object id", async () => {
    const credential = mintingCredential(stack.issuer, ADMIN);
    const client = clientAs(credential);
    const created = await client.profiles.create("by-token", { authenticationProfileContent: "{}" });
    expect(created.created).toBe(true);
    expect(created.systemData).toMatchObject({
      createdBy: principalObjectId(ADMIN),
      createdByType: "User",
      lastModifiedBy: principalObjectId(ADMIN),
    });
    await client.profiles.update("by-token", { authenticationProfileContent: SAMPLE_PROFILE_CONTENT });
    expect((await client.profiles.get("by-token")).authenticationProfileContent).toBe(SAMPLE_PROFILE_CONTENT);
    expect((await collect(client.profiles.list())).map((profile) => profile.id)).toContain("by-token");
    expect(await client.profiles.delete("by-token")).toBe(true);
    // One token for all of those: the pipeline keeps it until shortly before it expires.
    expect(credential.calls).toEqual([[LOCAL_SCOPE]]);
  });

  it("stamps an application's writes as a ServicePrincipal's", async () => {
    const client = clientAs(mintingCredential(stack.issuer, ADMIN, { app: true }));
    const created = await client.profiles.put("by-app", { authenticationProfileContent: "{}" });
    expect(created.systemData).toMatchObject({ createdByType: "ServicePrincipal" });
  });

  it("is asked again once the token it gave has expired, and the call goes through", async () => {
    // The pipeline refreshes by the expiry the credential reports, forcibly 1 s before it.
    const credential = mintingCredential(stack.issuer, ADMIN, { expiresInMs: 1500 });
    const client = clientAs(credential);
    await client.profiles.put("refreshed", { authenticationProfileContent: "{}" });
    expect(credential.calls).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await client.profiles.get("refreshed")).id).toBe("refreshed");
    expect(credential.calls.length).toBeGreaterThanOrEqual(2);
  });

  it("leaves /health without a token (the credential is not even asked)", async () => {
    const credential = mintingCredential(stack.issuer, ADMIN);
    expect((await clientAs(credential).health()).status).toBe("ok");
    expect(credential.calls).toEqual([]);
  });
});

describe("refusals, as typed ServiceErrors", () => {
  it("a principal without a role: 403 AuthorizationFailed naming the action and scope, no token quoted", async () => {
    const credential = mintingCredential(stack.issuer, "stranger");
    const error = (await rejection(() => clientAs(credential).profiles.get("anything"))) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect({ status: error.status, code: error.code }).toEqual({ status: 403, code: "AuthorizationFailed" });
    expect(error.message).toContain(principalObjectId("stranger"));
    expect(error.message).toContain("TwinResources/authenticationProfiles/read");
    expect(error.message).toContain("/authenticationProfiles/anything");
    expect(JSON.stringify(error)).not.toContain(credential.tokens[0]);
    expect(error.message).not.toContain(credential.tokens[0]);
  });

  it("an expired token: 401 InvalidAuthenticationToken saying so, not retried", async () => {
    const credential = mintingCredential(stack.issuer, ADMIN, {
      now: Math.floor(Date.now() / 1000) - 7200,
      lifetimeSeconds: 3600,
      expiresInMs: 3_600_000,
    });
    const error = (await rejection(() => clientAs(credential).profiles.get("x"))) as ServiceError;
    expect({ status: error.status, code: error.code }).toEqual({
      status: 401,
      code: "InvalidAuthenticationToken",
    });
    expect(error.message).toMatch(/expired/i);
    expect(credential.calls).toHaveLength(1);
  });

  it("a token for another audience: 401 InvalidAuthenticationToken", async () => {
    const credential = mintingCredential(stack.issuer, ADMIN, { audience: "api://someone-else" });
    await expect(clientAs(credential).profiles.get("x")).rejects.toMatchObject({
      status: 401,
      code: "InvalidAuthenticationToken",
    });
  });

  it("a key where a token is needed: 401 AuthenticationFailed", async () => {
    const keyed = new TwinServiceClient({ endpoint: stack.host.baseUrl, key: "a-function-key" });
    await expect(keyed.profiles.get("x")).rejects.toMatchObject({
      status: 401,
      code: "AuthenticationFailed",
    });
  });
});

describe("role assignments through the client", () => {
  const admin = () => as(ADMIN);

  it("create, create again, get, list at and below the scope, delete, delete again", async () => {
    const name = randomUUID();
    const principalId = principalObjectId("auditor");
    const input = { principalId, roleDefinitionName: "Reader" as const, principalType: "User" as const };
    const created = await admin().roleAssignments.create("/authenticationProfiles", name, input);
    expect(created).toMatchObject({
      id: `/authenticationProfiles/providers/Microsoft.Authorization/roleAssignments/${name}`,
      name,
      type: "Microsoft.Authorization/roleAssignments",
      scope: "/authenticationProfiles",
      principalId,
      principalType: "User",
      roleDefinitionId:
        "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
      roleDefinitionName: "Reader",
      created: true,
    });
    expect(created.systemData.createdBy).toBe(principalObjectId(ADMIN));
    expect((await admin().roleAssignments.create("/authenticationProfiles", name, input)).created).toBe(
      false,
    );
    expect((await admin().roleAssignments.get("/authenticationProfiles", name)).principalId).toBe(
      principalId,
    );

    const at = await collect(admin().roleAssignments.list("/authenticationProfiles"));
    expect(at.map((each) => each.name)).toContain(name);
    // Those above a scope hold there too, so a profile's list shows it.
    const below = await collect(admin().roleAssignments.list("/authenticationProfiles/team-a"));
    expect(below.map((each) => each.name)).toContain(name);
    const root = await collect(admin().roleAssignments.list("/"));
    expect(root.map((each) => each.name)).not.toContain(name);

    expect(await admin().roleAssignments.delete("/authenticationProfiles", name)).toBe(true);
    expect(await admin().roleAssignments.delete("/authenticationProfiles", name)).toBe(false);
    await expect(admin().roleAssignments.get("/authenticationProfiles", name)).rejects.toMatchObject({
      status: 404,
    });
  });

  it("a Reader reads but may not write: 403 AuthorizationFailed", async () => {
    const name = randomUUID();
    await admin().roleAssignments.create("/", name, {
      principalId: principalObjectId("reader"),
      roleDefinitionId: "acdd72a7-3385-48ef-bd42-f606fba81ae7",
    });
    await admin().profiles.put("readable", { authenticationProfileContent: "{}" });
    const reader = as("reader");
    expect((await reader.profiles.get("readable")).id).toBe("readable");
    const error = (await rejection(() =>
      reader.profiles.put("readable", { authenticationProfileContent: '{"a":"1"}' }),
    )) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect({ status: error.status, code: error.code }).toEqual({ status: 403, code: "AuthorizationFailed" });
    expect(error.message).toContain("TwinResources/authenticationProfiles/write");
    // A Reader may read the assignments, not make them.
    expect((await collect(reader.roleAssignments.list("/"))).map((each) => each.name)).toContain(name);
    await expect(
      reader.roleAssignments.create("/", randomUUID(), {
        principalId: principalObjectId("reader"),
        roleDefinitionName: "Owner",
      }),
    ).rejects.toMatchObject({ status: 403, code: "AuthorizationFailed" });
    await admin().roleAssignments.delete("/", name);
    await expect(reader.profiles.get("readable")).rejects.toMatchObject({ status: 403 });
  });

  it("a Contributor on one instance writes there only, and may not hand out roles", async () => {
    const instance = instanceId("contributed");
    const name = randomUUID();
    await admin().roleAssignments.create(instance, name, {
      principalId: principalObjectId("operator"),
      roleDefinitionName: "Contributor",
    });
    const operator = as("operator");
    expect(await collect(operator.endpoints.list(instance))).toEqual([]);
    await expect(collect(operator.endpoints.list(instanceId("elsewhere")))).rejects.toMatchObject({
      status: 403,
      code: "AuthorizationFailed",
    });
    await expect(
      operator.roleAssignments.create(instance, randomUUID(), {
        principalId: principalObjectId("friend"),
        roleDefinitionName: "Reader",
      }),
    ).rejects.toMatchObject({ status: 403, code: "AuthorizationFailed" });
    expect((await operator.roleAssignments.get(instance, name)).scope).toBe(instance);
  });

  it("answers the service's conflicts: another role under the name, the same role under another name", async () => {
    const name = randomUUID();
    const principalId = principalObjectId("conflicted");
    await admin().roleAssignments.create("/authenticationProfiles/team-c", name, {
      principalId,
      roleDefinitionName: "Reader",
    });
    await expect(
      admin().roleAssignments.create("/authenticationProfiles/team-c", name, {
        principalId,
        roleDefinitionName: "Contributor",
      }),
    ).rejects.toMatchObject({ status: 409, code: "RoleAssignmentUpdateNotPermitted" });
    await expect(
      admin().roleAssignments.create("/authenticationProfiles/team-c", randomUUID(), {
        principalId,
        roleDefinitionName: "Reader",
      }),
    ).rejects.toMatchObject({ status: 409, code: "RoleAssignmentExists" });
  });

  it("pages the list with top, following nextLink", async () => {
    const scope = "/subscriptions/00000000-0000-0000-0000-0000000000aa";
    const names = [randomUUID(), randomUUID(), randomUUID()];
    for (const [index, name] of names.entries()) {
      await admin().roleAssignments.create(scope, name, {
        principalId: principalObjectId(`paged-${index}`),
        roleDefinitionName: "Reader",
      });
    }
    const pages = await collect(admin().roleAssignments.list(scope, { top: 1 }).byPage());
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const listed = pages.flatMap((page) => page.value.map((each) => each.name));
    expect(listed).toEqual(expect.arrayContaining(names));
    const first = await admin().roleAssignments.listPage(scope, { top: 2 });
    expect(first.value).toHaveLength(2);
    expect(first.nextLink).toBeDefined();
  });

  it("refuses a scope or name that is not a path before sending anything", async () => {
    const credential = mintingCredential(stack.issuer, ADMIN);
    const client = clientAs(credential);
    await expect(client.roleAssignments.get("subscriptions/x", randomUUID())).rejects.toThrow(RangeError);
    await expect(client.roleAssignments.get("/subscriptions/../x", randomUUID())).rejects.toThrow(RangeError);
    await expect(client.roleAssignments.get("//x", randomUUID())).rejects.toThrow(RangeError);
    await expect(client.roleAssignments.delete("/", "..")).rejects.toThrow(RangeError);
    expect(credential.calls).toEqual([]);
  });

  it("encodes each segment of a scope, so a name cannot reach another path", async () => {
    const name = randomUUID();
    await expect(
      admin().roleAssignments.create(
        "/subscriptions/00000000-0000-0000-0000-0000000000bb/resourceGroups/rg?x=1#frag",
        name,
        { principalId: principalObjectId("encoded"), roleDefinitionName: "Reader" },
      ),
    ).rejects.toMatchObject({ status: 400 });
    // Nothing was made at the resource group the unencoded text would have named.
    const listed = await collect(
      admin().roleAssignments.list("/subscriptions/00000000-0000-0000-0000-0000000000bb/resourceGroups/rg"),
    );
    expect(listed.map((each) => each.name)).not.toContain(name);
  });
});
