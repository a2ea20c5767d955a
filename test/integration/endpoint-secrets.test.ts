import { randomBytes } from "node:crypto";
import { expectArmError } from "../support/arm";
import { startTestHost, type TestHost } from "../support/test-host";

// Secrets kept secret (CONTRACT section 3): never logged, sealed under a rotatable key, and a
// deployment with the wrong key fails clearly. Also the per-instance quota and delivery lookup.
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
const KEY = "bG9nZ2VkLW5ldmVyLXNoYXJlZC1rZXk=";
const SIGNATURE = "bmV2ZXItbG9nZ2VkLXNpZ25hdHVyZQ%3D%3D";
const body = {
  queuePrimaryConnectionString: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${KEY};EntityPath=topic`,
  queueSecondaryConnectionString: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${KEY}2;EntityPath=topic`,
  deadLetterStorageSecret: `https://acct.blob.core.windows.net/dead?sv=2022-11-02&sig=${SIGNATURE}`,
};

function put(host: TestHost, path: string, payload: unknown = body): Promise<Response> {
  return host.request(path, { method: "PUT", body: JSON.stringify(payload) });
}

describe("logs", () => {
  it("never carry a key or a SAS signature through create, read, update, list, errors and delete", async () => {
    const host = await startTestHost();
    try {
      const path = `${INSTANCE}/endpoints/logged`;
      expect((await put(host, path)).status).toBe(201);
      expect((await host.request(path)).status).toBe(200);
      expect((await host.request(path, { method: "PATCH", body: JSON.stringify(body) })).status).toBe(200);
      expect((await host.request(`${INSTANCE}/endpoints`)).status).toBe(200);
      // Failing requests that carry secrets too:
      await put(host, path, {
        ...body,
        queueSecondaryConnectionString: body.queueSecondaryConnectionString.replace("topic", "x"),
      });
      await put(host, path, { ...body, unknown: KEY });
      await put(host, `${INSTANCE}/endpoints/-bad`);
      expect((await host.request(path, { method: "DELETE" })).status).toBe(200);
      const logged = host.logs.map((entry) => entry.message).join("\n");
      expect(host.logs.length).toBeGreaterThanOrEqual(8);
      for (const secret of [KEY, SIGNATURE, decodeURIComponent(SIGNATURE)])
        expect(logged).not.toContain(secret);
    } finally {
      await host.stop();
    }
  });
});

describe("the encryption key", () => {
  const sealingKey = randomBytes(32).toString("base64");
  const otherKey = randomBytes(32).toString("base64");
  let databaseId: string;

  beforeAll(async () => {
    const host = await startTestHost({ SECRETS_ENCRYPTION_KEY: sealingKey });
    databaseId = host.config.COSMOS_DATABASE;
    expect((await put(host, `${INSTANCE}/endpoints/sealed`)).status).toBe(201);
    await host.stop();
  });

  it("a deployment with another key answers 500 SecretsUnreadable naming the cause, on GET and list", async () => {
    const host = await startTestHost({ SECRETS_ENCRYPTION_KEY: otherKey }, databaseId);
    try {
      const error = await expectArmError(
        await host.request(`${INSTANCE}/endpoints/sealed`),
        500,
        "SecretsUnreadable",
      );
      expect(error.message).toMatch(/sealed with encryption key [0-9a-f]{16}/);
      expect(error.message).toContain("SECRETS_ENCRYPTION_KEY");
      expect(error.message).not.toContain(sealingKey);
      await expectArmError(await host.request(`${INSTANCE}/endpoints`), 500, "SecretsUnreadable");
    } finally {
      await host.stop();
    }
  });

  it("after a rotation, the previous key still opens old secrets and new writes use the new key", async () => {
    const host = await startTestHost(
      { SECRETS_ENCRYPTION_KEY: otherKey, SECRETS_ENCRYPTION_PREVIOUS_KEYS: sealingKey },
      databaseId,
    );
    try {
      expect((await host.request(`${INSTANCE}/endpoints/sealed`)).status).toBe(200);
      expect((await put(host, `${INSTANCE}/endpoints/sealed`)).status).toBe(200);
    } finally {
      await host.stop();
    }
    const newKeyOnly = await startTestHost({ SECRETS_ENCRYPTION_KEY: otherKey }, databaseId);
    try {
      expect((await newKeyOnly.request(`${INSTANCE}/endpoints/sealed`)).status).toBe(200);
    } finally {
      await newKeyOnly.stop();
    }
  });
});

describe("the per-instance quota", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ ENDPOINTS_PER_INSTANCE_MAX: "6" });
  });
  afterAll(() => host.stop());

  it("holds when 12 creates on one instance race past it; other instances are not affected", async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) => put(host, `${INSTANCE}/endpoints/race-${index}`)),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(6);
    expect(statuses.filter((status) => status === 409)).toHaveLength(6);
    await expectArmError(responses[statuses.indexOf(409)] as Response, 409, "QuotaExceeded");
    const listed = (await (await host.request(`${INSTANCE}/endpoints`)).json()) as { value: unknown[] };
    expect(listed.value).toHaveLength(6);
    expect((await put(host, `${INSTANCE.replace("plant", "other-plant")}/endpoints/race-0`)).status).toBe(
      201,
    );
  });

  it("gives delivery every endpoint of an instance with its secrets opened, from one partition", async () => {
    const endpoints = await host.services.endpoints.listForDelivery({
      subscriptionId: "00000000-0000-0000-0000-000000000002",
      resourceGroupName: "RG",
      instanceName: "PLANT",
    });
    expect(endpoints).toHaveLength(6);
    for (const endpoint of endpoints) {
      expect(endpoint.topic).toBe("topic");
      expect(endpoint.secrets.queuePrimaryConnectionString).toBe(body.queuePrimaryConnectionString);
      expect(endpoint.secrets.deadLetterStorageSecret).toBe(body.deadLetterStorageSecret);
      expect(endpoint.id).toBe(`${INSTANCE}/endpoints/${endpoint.name}`);
    }
  });
});
