import { AuthenticationProfileProvider } from "../../pulumi/src/authentication-profile-provider";
import { QueueEndpointProvider } from "../../pulumi/src/queue-endpoint-provider";
import { connectionString, DEAD_LETTER, ENDPOINT_INPUT, instanceId } from "../client/fixtures";

// Which input changes replace a resource and which update it in place (seed section 3.4).
const profile = {
  authenticationProfileName: "warehouse-sso",
  authenticationProfileContent: "{}",
  serviceEndpoint: "http://127.0.0.1:7071",
  serviceKey: "key-1",
};
const endpoint = {
  ...ENDPOINT_INPUT,
  twinsInstanceId: instanceId("factory"),
  name: "orders",
  serviceEndpoint: "http://127.0.0.1:7071",
  serviceKey: "key-1",
};

describe("AuthenticationProfile diff", () => {
  const diff = (changes: Partial<typeof profile>) =>
    new AuthenticationProfileProvider().diff("warehouse-sso", profile, { ...profile, ...changes });

  it("reports no change for the same inputs", async () => {
    expect(await diff({})).toMatchObject({ changes: false, replaces: [] });
  });

  it("replaces on authenticationProfileName, creating the new profile before deleting the old", async () => {
    expect(await diff({ authenticationProfileName: "renamed" })).toEqual({
      changes: true,
      replaces: ["authenticationProfileName"],
      stables: [],
      deleteBeforeReplace: false,
    });
  });

  it("replaces a change of casing alone by deleting first: the service would see the same profile", async () => {
    expect(await diff({ authenticationProfileName: "Warehouse-SSO" })).toMatchObject({
      changes: true,
      replaces: ["authenticationProfileName"],
      deleteBeforeReplace: true,
    });
  });

  it.each([
    ["authenticationProfileContent", '{"App_ID":"2"}'],
    ["serviceEndpoint", "http://127.0.0.1:7072"],
    ["serviceKey", "key-2"],
  ] as const)("updates %s in place", async (field, value) => {
    expect(await diff({ [field]: value })).toEqual({
      changes: true,
      replaces: [],
      stables: ["authenticationProfileName"],
      deleteBeforeReplace: false,
    });
  });
});

describe("QueueEndpoint diff", () => {
  const diff = (changes: Partial<typeof endpoint> & Record<string, unknown>) =>
    new QueueEndpointProvider().diff("id", endpoint, { ...endpoint, ...changes });

  it("reports no change for the same inputs, whatever the import id or logical name", async () => {
    expect(
      await diff({ importId: `${instanceId("factory")}/endpoints/orders`, logicalName: "other" }),
    ).toMatchObject({
      changes: false,
      replaces: [],
    });
  });

  it.each([
    ["twinsInstanceId", instanceId("other-factory")],
    ["name", "invoices"],
  ] as const)("replaces on %s", async (field, value) => {
    const result = await diff({ [field]: value });
    expect(result).toMatchObject({ changes: true, replaces: [field], deleteBeforeReplace: false });
  });

  it("replaces a change of casing alone by deleting first", async () => {
    expect(await diff({ name: "Orders" })).toMatchObject({ replaces: ["name"], deleteBeforeReplace: true });
    expect(await diff({ twinsInstanceId: instanceId("FACTORY") })).toMatchObject({
      replaces: ["twinsInstanceId"],
      deleteBeforeReplace: true,
    });
  });

  it.each([
    ["queuePrimaryConnectionString", connectionString("bmV3LWtleQ==")],
    ["queueSecondaryConnectionString", connectionString("bmV3LWtleQ==", "send2")],
    ["deadLetterStorageSecret", `${DEAD_LETTER}x`],
    ["deadLetterStorageSecret", undefined],
    ["serviceEndpoint", "http://127.0.0.1:7072"],
    ["serviceKey", "key-2"],
  ] as const)("updates %s in place (to %p)", async (field, value) => {
    expect(await diff({ [field]: value })).toEqual({
      changes: true,
      replaces: [],
      stables: ["twinsInstanceId", "name"],
      deleteBeforeReplace: false,
    });
  });
});
