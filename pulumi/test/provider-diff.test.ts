import {
  connectionString,
  DEAD_LETTER,
  ENDPOINT_IDENTITY_ID,
  ENDPOINT_INPUT,
  IDENTITY_ENDPOINT_INPUT,
  instanceId,
} from "../../test/client/fixtures";
import { AuthenticationProfileProvider } from "../src/authentication-profile-provider";
import {
  type EndpointProviderInputs,
  type EndpointProviderOutputs,
  identityPatch,
  QueueEndpointProvider,
} from "../src/queue-endpoint-provider";

// Which input changes replace a resource and which update it in place (seed section 3.4).
const profile = {
  authenticationProfileName: "warehouse-sso",
  authenticationProfileContent: "{}",
  serviceEndpoint: "http://127.0.0.1:7071",
  serviceKey: "key-1",
};
const endpoint: EndpointProviderOutputs = {
  ...ENDPOINT_INPUT,
  authenticationType: "KeyBased",
  twinsInstanceId: instanceId("factory"),
  name: "orders",
  serviceEndpoint: "http://127.0.0.1:7071",
  serviceKey: "key-1",
};
const identityEndpoint: EndpointProviderOutputs = {
  ...IDENTITY_ENDPOINT_INPUT,
  twinsInstanceId: instanceId("factory"),
  name: "orders",
  serviceEndpoint: "http://127.0.0.1:7071",
  serviceKey: "key-1",
};
/** The inputs of a key-based endpoint as a program written before the kinds gives them (no authenticationType). */
function keyBasedInputs(olds: EndpointProviderOutputs): EndpointProviderInputs {
  const { authenticationType: _kind, ...inputs } = olds;
  return inputs;
}

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
  const diff = (changes: Partial<EndpointProviderInputs> & Record<string, unknown>) =>
    new QueueEndpointProvider().diff("id", endpoint, { ...keyBasedInputs(endpoint), ...changes });

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
      stables: ["twinsInstanceId", "name", "authenticationType"],
      deleteBeforeReplace: false,
    });
  });
});

describe("QueueEndpoint diff: the kinds", () => {
  const provider = new QueueEndpointProvider();
  const diff = (olds: EndpointProviderOutputs, news: Partial<EndpointProviderInputs>) =>
    provider.diff("id", olds, news as EndpointProviderInputs);
  const identityInputs = (changes: Partial<EndpointProviderInputs> = {}): EndpointProviderInputs => ({
    ...identityEndpoint,
    ...changes,
  });

  it("reads a key-based endpoint's absent authenticationType as KeyBased, in the program and in old state", async () => {
    expect(
      await diff(endpoint, { ...keyBasedInputs(endpoint), authenticationType: "KeyBased" }),
    ).toMatchObject({
      changes: false,
    });
    expect(await diff(keyBasedInputs(endpoint) as EndpointProviderOutputs, { ...endpoint })).toMatchObject({
      changes: false,
    });
  });

  it("replaces a key-based endpoint that becomes identity-based, deleting it first: the name stays", async () => {
    const {
      queuePrimaryConnectionString: _p,
      queueSecondaryConnectionString: _s,
      deadLetterStorageSecret: _d,
      ...rest
    } = keyBasedInputs(endpoint);
    expect(await diff(endpoint, { ...rest, ...IDENTITY_ENDPOINT_INPUT })).toEqual({
      changes: true,
      replaces: ["authenticationType"],
      stables: ["twinsInstanceId", "name"],
      deleteBeforeReplace: true,
    });
  });

  it("replaces an identity-based endpoint that becomes key-based (authenticationType left out), deleting it first", async () => {
    expect(
      await diff(identityEndpoint, {
        ...ENDPOINT_INPUT,
        twinsInstanceId: identityEndpoint.twinsInstanceId,
        name: "orders",
        serviceEndpoint: "http://127.0.0.1:7071",
        serviceKey: "key-1",
      }),
    ).toEqual({
      changes: true,
      replaces: ["authenticationType"],
      stables: ["twinsInstanceId", "name"],
      deleteBeforeReplace: true,
    });
  });

  it("replaces on a new kind and instance together by creating first (another resource)", async () => {
    expect(
      await diff(endpoint, {
        ...IDENTITY_ENDPOINT_INPUT,
        twinsInstanceId: instanceId("other"),
        name: "orders",
      }),
    ).toMatchObject({ replaces: ["twinsInstanceId", "authenticationType"], deleteBeforeReplace: false });
  });

  it("reports no change for the same identity-based inputs", async () => {
    expect(await diff(identityEndpoint, identityInputs())).toMatchObject({ changes: false, replaces: [] });
  });

  it.each([
    ["endpointUri", "sb://other-ns.servicebus.windows.net/"],
    ["entityPath", "other-topic"],
    ["deadLetterUri", "https://deadletters.blob.core.windows.net/other"],
    ["deadLetterUri", undefined],
    ["identity", { type: "UserAssigned", userAssignedIdentity: ENDPOINT_IDENTITY_ID }],
    ["serviceEndpoint", "http://127.0.0.1:7072"],
  ] as const)("updates an identity-based endpoint's %s in place (to %p)", async (field, value) => {
    expect(await diff(identityEndpoint, identityInputs({ [field]: value }))).toEqual({
      changes: true,
      replaces: [],
      stables: ["twinsInstanceId", "name", "authenticationType"],
      deleteBeforeReplace: false,
    });
  });

  it("sees no change between an absent identity and the system-assigned one, nor in an ARM id's casing", async () => {
    expect(
      await diff(identityEndpoint, identityInputs({ identity: { type: "SystemAssigned" } })),
    ).toMatchObject({
      changes: false,
    });
    const named = identityInputs({
      identity: { type: "UserAssigned", userAssignedIdentity: ENDPOINT_IDENTITY_ID },
    });
    expect(
      await diff(named as EndpointProviderOutputs, {
        ...named,
        identity: { type: "UserAssigned", userAssignedIdentity: ENDPOINT_IDENTITY_ID.toUpperCase() },
      }),
    ).toMatchObject({ changes: false });
    expect(
      await diff(named as EndpointProviderOutputs, {
        ...named,
        identity: { type: "UserAssigned", userAssignedIdentity: `${ENDPOINT_IDENTITY_ID}-2` },
      }),
    ).toMatchObject({ changes: true, replaces: [] });
  });
});

describe("QueueEndpoint update of an identity-based endpoint: the PATCH", () => {
  const olds = { ...IDENTITY_ENDPOINT_INPUT };

  it("sends only what changed, so an unchanged user-assigned identity is not named again", () => {
    const named = {
      ...olds,
      identity: { type: "UserAssigned" as const, userAssignedIdentity: ENDPOINT_IDENTITY_ID },
    };
    expect(identityPatch(named, { ...named, entityPath: "other-topic" })).toEqual({
      entityPath: "other-topic",
    });
    expect(identityPatch(named, { ...named })).toEqual({});
  });

  it("removes a dropped dead-letter location with null, and names the system identity for a dropped one", () => {
    const named = {
      ...olds,
      identity: { type: "UserAssigned" as const, userAssignedIdentity: ENDPOINT_IDENTITY_ID },
    };
    const { deadLetterUri: _d, identity: _i, ...rest } = named;
    expect(identityPatch(named, rest)).toEqual({ deadLetterUri: null, identity: { type: "SystemAssigned" } });
  });

  it("names a new identity and a new namespace", () => {
    const identity = { type: "UserAssigned" as const, userAssignedIdentity: ENDPOINT_IDENTITY_ID };
    expect(identityPatch(olds, { ...olds, identity, endpointUri: "sb://b.servicebus.windows.net/" })).toEqual(
      {
        identity,
        endpointUri: "sb://b.servicebus.windows.net/",
      },
    );
  });
});

describe("QueueEndpoint check: the shape of each kind", () => {
  const provider = new QueueEndpointProvider();
  const base = { twinsInstanceId: instanceId("factory"), name: "orders" };
  const failures = async (inputs: Record<string, unknown>) =>
    (await provider.check({}, { ...base, ...inputs } as EndpointProviderInputs)).failures ?? [];

  it("takes either kind whole, and a key-based one without authenticationType", async () => {
    expect(await failures({ ...ENDPOINT_INPUT })).toEqual([]);
    expect(await failures({ ...ENDPOINT_INPUT, authenticationType: "KeyBased" })).toEqual([]);
    expect(await failures({ ...IDENTITY_ENDPOINT_INPUT })).toEqual([]);
    expect(
      await failures({
        ...IDENTITY_ENDPOINT_INPUT,
        identity: { type: "UserAssigned", userAssignedIdentity: ENDPOINT_IDENTITY_ID },
      }),
    ).toEqual([]);
  });

  it("refuses a mix, naming the fields of the other kind and never their values", async () => {
    const found = await failures({
      ...IDENTITY_ENDPOINT_INPUT,
      queuePrimaryConnectionString: ENDPOINT_INPUT.queuePrimaryConnectionString,
    });
    expect(found.map((f) => f.property)).toEqual(["queuePrimaryConnectionString"]);
    expect(JSON.stringify(found)).not.toContain("SharedAccessKey");
    const mixed = await failures({
      ...ENDPOINT_INPUT,
      endpointUri: "sb://x.servicebus.windows.net/",
      identity: { type: "SystemAssigned" },
    });
    expect(mixed.map((f) => f.property)).toEqual(["endpointUri", "identity"]);
    expect(mixed[0]?.reason).toMatch(/belongs to IdentityBased endpoints.*authenticationType absent/);
  });

  it("names what a kind requires and lacks, and an unknown authenticationType", async () => {
    expect(
      (await failures({ authenticationType: "IdentityBased", entityPath: "t" })).map((f) => f.property),
    ).toEqual(["endpointUri"]);
    expect((await failures({ queuePrimaryConnectionString: "x" })).map((f) => f.property)).toEqual([
      "queueSecondaryConnectionString",
    ]);
    expect(await failures({ ...ENDPOINT_INPUT, authenticationType: "SharedKey" })).toEqual([
      {
        property: "authenticationType",
        reason: 'must be KeyBased (the default) or IdentityBased, not "SharedKey"',
      },
    ]);
  });

  it("keeps the name when a new authenticationType replaces an unnamed endpoint", async () => {
    const first = await provider.check(
      {},
      { ...ENDPOINT_INPUT, twinsInstanceId: base.twinsInstanceId, logicalName: "orders" },
    );
    const second = await provider.check(first.inputs, {
      ...IDENTITY_ENDPOINT_INPUT,
      twinsInstanceId: base.twinsInstanceId,
      logicalName: "orders",
    });
    expect(second.inputs.name).toBe(first.inputs.name);
  });
});
