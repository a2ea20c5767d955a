import { randomUUID } from "node:crypto";
import { deliverToEndpoint } from "../../src/delivery/endpoint-delivery";
import type { DeliveryEndpoint } from "../../src/endpoints/delivery-endpoint";
import { CONTAINERS } from "../../src/store/containers";
import { expectArmError } from "../support/arm";
import { startTestHost, type TestHost } from "../support/test-host";

// CONTRACT §8 over HTTP: IdentityBased endpoints beside KeyBased ones, every rule of their shape.
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000008/resourceGroups/Identity-RG/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
const TEAM_IDENTITY =
  "/subscriptions/00000000-0000-0000-0000-000000000008/resourceGroups/team-a/providers/Microsoft.ManagedIdentity/userAssignedIdentities/orders-sender";
const OTHER_IDENTITY = TEAM_IDENTITY.replace("orders-sender", "not-attached");
const connection = (key: string) =>
  `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=twin-events`;
const KEY_BODY = {
  queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
  queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
};
const IDENTITY_BODY = {
  authenticationType: "IdentityBased",
  endpointUri: "sb://contoso.servicebus.windows.net/",
  entityPath: "twin-events",
  deadLetterUri: "https://contosodead.blob.core.windows.net/dead-letters",
};

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({
    ENDPOINTS_PER_INSTANCE_MAX: "4",
    ENDPOINT_USER_ASSIGNED_IDENTITIES: TEAM_IDENTITY,
  });
});
afterAll(() => host.stop());

const endpoint = (name: string) => `${INSTANCE}/endpoints/${name}`;
const put = (name: string, body: unknown, headers: Record<string, string> = {}) =>
  host.request(endpoint(name), { method: "PUT", body: JSON.stringify(body), headers });
const patch = (name: string, body: unknown) =>
  host.request(endpoint(name), { method: "PATCH", body: JSON.stringify(body) });
const remove = (name: string) => host.request(endpoint(name), { method: "DELETE" });

async function storedDocument(name: string): Promise<Record<string, unknown>> {
  const container = host.services.database.container(CONTAINERS.queueEndpoints.id);
  const { resources } = await container.items
    .query({ query: "SELECT * FROM c WHERE c.name = @name", parameters: [{ name: "@name", value: name }] })
    .fetchAll();
  return resources[0] as Record<string, unknown>;
}

async function refusedTargets(response: Response, code = "InvalidRequestContent"): Promise<string[]> {
  const error = await expectArmError(response, 400, code);
  return (error.details ?? []).map((detail) => detail.target ?? "");
}

describe("an IdentityBased endpoint", () => {
  afterEach(async () => {
    for (const name of ["orders", "keyed", "mixed"]) await remove(name);
  });

  it("is created, read and listed with its settings, nothing masked, and stores no secret", async () => {
    const created = await put("orders", IDENTITY_BODY);
    expect(created.status).toBe(201);
    const resource = await created.json();
    expect(resource).toEqual({
      id: endpoint("orders"),
      name: "orders",
      twinsInstanceId: INSTANCE,
      ...IDENTITY_BODY,
      systemData: expect.any(Object),
    });
    expect(await (await host.request(endpoint("orders"))).json()).toEqual(resource);
    const stored = await storedDocument("orders");
    expect(stored.secrets).toBeUndefined();
    expect(stored.topic).toBe("twin-events");
    expect(JSON.stringify(stored)).not.toMatch(/SharedAccessKey|sig=/);
  });

  it("lists beside KeyBased endpoints, each with its kind", async () => {
    expect((await put("orders", IDENTITY_BODY)).status).toBe(201);
    const keyed = await put("keyed", KEY_BODY);
    expect(keyed.status).toBe(201);
    expect(((await keyed.json()) as { authenticationType: string }).authenticationType).toBe("KeyBased");
    const { value } = (await (await host.request(`${INSTANCE}/endpoints`)).json()) as {
      value: { name: string; authenticationType: string; queuePrimaryConnectionString?: string }[];
    };
    expect(value.map(({ name, authenticationType }) => [name, authenticationType])).toEqual([
      ["keyed", "KeyBased"],
      ["orders", "IdentityBased"],
    ]);
    expect(value[0]?.queuePrimaryConnectionString).toContain("SharedAccessKey=***");
  });

  it("takes a user-assigned identity attached for endpoints, in any letter case, and refuses one that is not", async () => {
    const identity = { type: "UserAssigned", userAssignedIdentity: TEAM_IDENTITY.toUpperCase() };
    expect((await put("orders", { ...IDENTITY_BODY, identity })).status).toBe(201);
    expect(
      await refusedTargets(
        await put("orders", {
          ...IDENTITY_BODY,
          identity: { type: "UserAssigned", userAssignedIdentity: OTHER_IDENTITY },
        }),
      ),
    ).toEqual(["identity.userAssignedIdentity"]);
    expect(
      await refusedTargets(
        await put("orders", {
          ...IDENTITY_BODY,
          identity: { type: "UserAssigned", userAssignedIdentity: `${INSTANCE}/endpoints/x` },
        }),
      ),
    ).toEqual(["identity.userAssignedIdentity"]);
  });

  it("changes in place by PATCH, keeping what the body leaves out; deadLetterUri null removes it", async () => {
    expect((await put("orders", IDENTITY_BODY)).status).toBe(201);
    const changed = await patch("orders", { entityPath: "alarms", deadLetterUri: null });
    expect(changed.status).toBe(200);
    const resource = (await changed.json()) as Record<string, unknown>;
    expect(resource.entityPath).toBe("alarms");
    expect(resource.endpointUri).toBe(IDENTITY_BODY.endpointUri);
    expect(resource).not.toHaveProperty("deadLetterUri");
    const identity = { type: "UserAssigned", userAssignedIdentity: TEAM_IDENTITY };
    expect(((await (await patch("orders", { identity })).json()) as { identity: unknown }).identity).toEqual(
      identity,
    );
    expect((await storedDocument("orders")).topic).toBe("alarms");
  });

  it("never changes kind, by PUT or PATCH, either way (as ADT): 400 naming authenticationType", async () => {
    expect((await put("orders", IDENTITY_BODY)).status).toBe(201);
    expect((await put("keyed", KEY_BODY)).status).toBe(201);
    for (const refused of [
      await put("orders", KEY_BODY),
      await put("orders", { ...KEY_BODY, authenticationType: "KeyBased" }),
      await patch("orders", { authenticationType: "KeyBased" }),
      await put("keyed", IDENTITY_BODY),
      await patch("keyed", { authenticationType: "IdentityBased" }),
    ]) {
      expect(await refusedTargets(refused)).toEqual(["authenticationType"]);
    }
    expect(
      ((await (await host.request(endpoint("orders"))).json()) as { endpointUri: string }).endpointUri,
    ).toBe(IDENTITY_BODY.endpointUri);
  });

  it("refuses a mix of the two kinds' fields, naming each field of the other kind", async () => {
    expect(
      await refusedTargets(
        await put("mixed", {
          ...IDENTITY_BODY,
          queuePrimaryConnectionString: KEY_BODY.queuePrimaryConnectionString,
        }),
      ),
    ).toEqual(["queuePrimaryConnectionString"]);
    expect(
      await refusedTargets(await put("mixed", { ...KEY_BODY, endpointUri: IDENTITY_BODY.endpointUri })),
    ).toEqual(["endpointUri"]);
    expect((await put("orders", IDENTITY_BODY)).status).toBe(201);
    expect(
      await refusedTargets(await patch("orders", { deadLetterStorageSecret: null, entityPath: "x" })),
    ).toEqual(["deadLetterStorageSecret"]);
    expect((await put("keyed", KEY_BODY)).status).toBe(201);
    expect(await refusedTargets(await patch("keyed", { identity: { type: "SystemAssigned" } }))).toEqual([
      "identity",
    ]);
  });

  it("takes no secret anywhere: a SAS on deadLetterUri and user information are refused, never echoed", async () => {
    const sas = "sv=2022-11-02&sp=cw&se=2030-01-01&sig=c2VjcmV0LXNpZ25hdHVyZQ%3D%3D";
    for (const body of [
      { ...IDENTITY_BODY, deadLetterUri: `${IDENTITY_BODY.deadLetterUri}?${sas}` },
      { ...IDENTITY_BODY, endpointUri: "sb://user:c2VjcmV0@contoso.servicebus.windows.net/" },
    ]) {
      const response = await put("orders", body);
      const text = await response.clone().text();
      expect(text).not.toContain("c2VjcmV0");
      expect((await refusedTargets(response)).length).toBe(1);
    }
  });

  it("points only where the allow-list admits, as KeyBased endpoints do", async () => {
    for (const [field, value] of [
      ["endpointUri", "sb://169.254.169.254/"],
      ["endpointUri", "sb://contoso.servicebus.windows.net.evil.example/"],
      ["deadLetterUri", "https://metadata.internal/dead"],
      ["deadLetterUri", "https://[::ffff:7f00:1]/dead"],
      ["entityPath", "../../other"],
    ] as const) {
      expect([
        field,
        await refusedTargets(await put("orders", { ...IDENTITY_BODY, [field]: value })),
      ]).toEqual([field, [field]]);
    }
  });

  it("names every field's problem at once, also when the body's shape is refused", async () => {
    const { entityPath: _missing, ...body } = IDENTITY_BODY;
    const targets = await refusedTargets(
      await put("orders", {
        ...body,
        endpointUri: "sb://10.0.0.4/",
        deadLetterUri: "https://evil.example/dead",
        identity: { type: "UserAssigned", userAssignedIdentity: OTHER_IDENTITY },
      }),
    );
    expect(targets.sort()).toEqual([
      "deadLetterUri",
      "endpointUri",
      "entityPath",
      "identity.userAssignedIdentity",
    ]);
  });

  it("counts toward the instance's quota with KeyBased endpoints", async () => {
    const names = ["orders", "keyed", "mixed", "fourth"];
    for (const [index, name] of names.entries()) {
      expect((await put(name, index % 2 === 0 ? IDENTITY_BODY : KEY_BODY)).status).toBe(201);
    }
    await expectArmError(await put("fifth", IDENTITY_BODY), 409, "QuotaExceeded");
    expect((await remove("fourth")).status).toBe(200);
  });

  it("is passed by when secrets are re-sealed: nothing of it is sealed", async () => {
    expect((await put("orders", IDENTITY_BODY)).status).toBe(201);
    expect((await put("keyed", KEY_BODY)).status).toBe(201);
    const report = await host.services.endpoints.reseal();
    expect(report).toMatchObject({ scanned: 1, alreadyCurrent: 1, resealed: 0, remaining: {} });
    expect((await host.request(endpoint("orders"))).status).toBe(200);
  });

  it("without deadLetterUri, has no dead letters to redeliver: 409 naming deadLetterUri", async () => {
    const { deadLetterUri: _none, ...withoutDeadLetters } = IDENTITY_BODY;
    expect((await put("orders", withoutDeadLetters)).status).toBe(201);
    const response = await host.request(`${endpoint("orders")}/redeliverDeadLetters`, {
      method: "POST",
      body: "{}",
    });
    const error = await expectArmError(response, 409, "DeadLettersUnavailable");
    expect(error.message).toContain("deadLetterUri");
  });
});

describe("an IdentityBased endpoint stored under wider settings", () => {
  // Written where loopback and an identity were admitted, then read by a host whose settings no
  // longer admit them: delivery neither connects nor gets a token, and says why.
  const path = {
    subscriptionId: "00000000-0000-0000-0000-000000000008",
    resourceGroupName: "Identity-RG",
    instanceName: "plant",
  };

  it("is never sent to, and names the settings that refuse it", async () => {
    const database = `test-${randomUUID().slice(0, 8)}`;
    const wide = await startTestHost({ ENDPOINT_USER_ASSIGNED_IDENTITIES: TEAM_IDENTITY }, database);
    const identity = { type: "UserAssigned", userAssignedIdentity: TEAM_IDENTITY };
    for (const [name, body] of [
      ["local", { ...IDENTITY_BODY, endpointUri: "sb://localhost:1/" }],
      ["team", { ...IDENTITY_BODY, identity }],
    ] as const) {
      const response = await wide.request(endpoint(name), { method: "PUT", body: JSON.stringify(body) });
      expect(response.status).toBe(201);
    }
    await wide.stop();
    const narrow = await startTestHost({ ALLOW_LOOPBACK_ENDPOINTS: "false" }, database, {
      createContainers: false,
    });
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const { endpoints } = await narrow.services.endpoints.listForDelivery(path);
      const unusable = Object.fromEntries(
        endpoints.map((each) => [each.name, each.sendTo === undefined ? each.unusable : undefined]),
      );
      expect(unusable.local).toMatchObject({
        code: "SettingsNotAdmitted",
        reason: expect.stringContaining("ALLOW_LOOPBACK_ENDPOINTS"),
      });
      expect(unusable.team).toMatchObject({
        code: "SettingsNotAdmitted",
        reason: expect.stringContaining("ENDPOINT_USER_ASSIGNED_IDENTITIES"),
      });
      const result = await deliverToEndpoint(narrow.services.senders, endpoints[0] as DeliveryEndpoint, [
        { id: "e1", source: "/s", specversion: "1.0", type: "T" },
      ]);
      expect(result).toMatchObject({ delivered: [], lastErrorName: "SettingsNotAdmitted" });
      // Still readable and deletable by its owner.
      expect((await narrow.request(endpoint("team"))).status).toBe(200);
    } finally {
      warn.mockRestore();
      await narrow.stop();
    }
  });
});
