import { randomBytes } from "node:crypto";
import * as net from "node:net";
import { startServiceBusStandIn } from "../../dev/stand-ins/service-bus";
import { deliverToEndpoint } from "../../src/delivery/endpoint-delivery";
import type { DeliveryEndpoint } from "../../src/endpoints/endpoint-service";
import type { CloudEvent } from "../../src/events/cloud-event";
import { CONTAINERS } from "../../src/store/containers";
import { expectArmError } from "../support/arm";
import {
  connectionOf,
  createEndpoint,
  ingest,
  poisonRecords,
  Subscriber,
  sasUrlOf,
  cloudEvent as twinEvent,
  waitUntil,
} from "../support/delivery-kit";
import { startTestHost, type TestHost } from "../support/test-host";

/** What was warned: by this process's clients (console.warn) and by the host process (its log). */
function warned(warn: jest.SpyInstance, host: TestHost): string {
  return [...warn.mock.calls.map((call) => call.join(" ")), ...host.logs.map((entry) => entry.message)].join(
    "\n",
  );
}

// Secrets kept secret (docs/api.md): never logged, sealed under a rotatable key, and a
// deployment with the wrong key fails clearly. Also the per-instance quota and delivery lookup.
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
const KEY = "bG9nZ2VkLW5ldmVyLXNoYXJlZC1rZXk=";
const SIGNATURE = "bmV2ZXItbG9nZ2VkLXNpZ25hdHVyZQ%3D%3D";
const body = {
  queuePrimaryConnectionString: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${KEY};EntityPath=topic`,
  queueSecondaryConnectionString: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${KEY}2;EntityPath=topic`,
  deadLetterStorageSecret: `https://acct.blob.core.windows.net/dead?sv=2022-11-02&sp=cw&sig=${SIGNATURE}`,
};

function put(host: TestHost, path: string, payload: unknown = body): Promise<Response> {
  return host.request(path, { method: "PUT", body: JSON.stringify(payload) });
}

/** How an endpoint whose secrets this deployment cannot open is listed: every secret hidden. */
function masked(name: string) {
  return {
    id: `${INSTANCE}/endpoints/${name}`,
    name,
    twinsInstanceId: INSTANCE,
    authenticationType: "KeyBased",
    queuePrimaryConnectionString: "***",
    queueSecondaryConnectionString: "***",
    systemData: expect.objectContaining({ createdByType: "Key", lastModifiedBy: "default" }),
  };
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

  it("a deployment with another key answers 500 SecretsUnreadable naming the cause on GET, and lists it masked", async () => {
    const host = await startTestHost({ SECRETS_ENCRYPTION_KEY: otherKey }, databaseId);
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const error = await expectArmError(
        await host.request(`${INSTANCE}/endpoints/sealed`),
        500,
        "SecretsUnreadable",
      );
      expect(error.message).toMatch(/sealed with encryption key [0-9a-f]{16}/);
      expect(error.message).toContain("SECRETS_ENCRYPTION_KEY");
      expect(error.message).not.toContain(sealingKey);
      const listed = await host.request(`${INSTANCE}/endpoints`);
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { value: unknown[] }).value).toEqual([masked("sealed")]);
      expect(warned(warn, host)).toContain(`${INSTANCE}/endpoints/sealed is listed with its secrets masked`);
    } finally {
      warn.mockRestore();
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
    const { endpoints } = await host.services.endpoints.listForDelivery({
      subscriptionId: "00000000-0000-0000-0000-000000000002",
      resourceGroupName: "RG",
      instanceName: "PLANT",
    });
    expect(endpoints).toHaveLength(6);
    for (const endpoint of endpoints) {
      expect(endpoint.topic).toBe("topic");
      expect(connectionOf(endpoint)).toBe(body.queuePrimaryConnectionString);
      expect(sasUrlOf(endpoint)).toBe(body.deadLetterStorageSecret);
      expect(endpoint.id).toBe(`${INSTANCE}/endpoints/${endpoint.name}`);
    }
  });
});

describe("an endpoint whose secrets cannot be opened", () => {
  /** Flips the first byte of the endpoint's ciphertext: the GCM tag no longer matches. Returns the document. */
  async function breakSecrets(host: TestHost, instance: string, name: string) {
    const container = host.services.database.container(CONTAINERS.queueEndpoints.id);
    const partitionKey = instance.toLowerCase();
    const { resource } = await container.item(name, partitionKey).read();
    const ciphertext = Buffer.from(resource.secrets.ciphertext, "base64");
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 0xff;
    await container.item(name, partitionKey).replace({
      ...resource,
      secrets: { ...resource.secrets, ciphertext: ciphertext.toString("base64") },
    });
    return resource;
  }

  it("is listed with its secrets masked, the others as usual, and a warning names it (never a secret)", async () => {
    const host = await startTestHost();
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      for (const name of ["first", "broken", "third"])
        expect((await put(host, `${INSTANCE}/endpoints/${name}`)).status).toBe(201);
      const resource = await breakSecrets(host, INSTANCE, "broken");

      const listed = await host.request(`${INSTANCE}/endpoints`);
      expect(listed.status).toBe(200);
      const text = await listed.text();
      const items = (JSON.parse(text) as { value: Record<string, string>[] }).value;
      expect(items.map((item) => item.name)).toEqual(["broken", "first", "third"]);
      expect(items[0]).toEqual(masked("broken"));
      expect(items[1]?.queuePrimaryConnectionString).toContain("SharedAccessKey=***");
      expect(text).not.toContain(KEY);

      await expectArmError(await host.request(`${INSTANCE}/endpoints/broken`), 500, "SecretsUnreadable");
      const warnings = warned(warn, host);
      expect(warnings).toContain(`${INSTANCE}/endpoints/broken`);
      expect(warnings).toMatch(/SecretsUnreadable|cannot be opened/);
      expect(warnings).not.toContain(KEY);
      expect(warnings).not.toContain(resource.secrets.ciphertext);
    } finally {
      warn.mockRestore();
      await host.stop();
    }
  });

  it("holds up delivery to itself alone: the instance's other endpoint gets the event, its own end poisoned", async () => {
    const serviceBus = await startServiceBusStandIn({ port: 0 });
    // One attempt: a failed delivery goes straight to dead-lettering, which is impossible here.
    const host = await startTestHost({ DELIVERY_MAX_ATTEMPTS: "1", ENDPOINT_CACHE_SECONDS: "0" }, undefined, {
      queueTriggers: {},
    });
    // Both endpoints name the same topic: were the broken one delivered to, the event would arrive twice.
    const subscriber = new Subscriber(serviceBus, "shared-topic");
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const instance = INSTANCE.replace("plant", "sealed-plant");
      const connection = serviceBus.connectionString("shared-topic");
      for (const name of ["broken", "working"])
        await createEndpoint(host, instance, name, { primary: connection, secondary: connection });
      await breakSecrets(host, instance, "broken");

      await ingest(host, instance, [twinEvent("sealed-1")]);
      let poisoned: Record<string, unknown>[] = [];
      await waitUntil(
        async () => {
          poisoned = await poisonRecords(host);
          return poisoned.length > 0 && subscriber.received.length > 0;
        },
        60_000,
        "the event delivered to one endpoint and poisoned for the other",
      );
      expect(subscriber.ids()).toEqual(["sealed-1"]);
      expect(poisoned).toEqual([
        expect.objectContaining({
          reason: "SecretsUnreadable",
          endpointName: "broken",
          twinsInstanceId: instance,
          attempts: 1,
          detail: expect.stringMatching(/secrets cannot be opened: Stored secrets failed authentication/),
          events: [expect.objectContaining({ id: "sealed-1" })],
        }),
      ]);
      await host.flushLogs();
      const logged = host.logs.map((entry) => entry.message).join("\n");
      expect(logged).toMatch(
        /twin event poisoned: .*endpoint="broken" event="sealed-1" reason="SecretsUnreadable"/,
      );
      expect(logged).toContain("twin events: delivered=1 retried=0 deadLettered=0 poisoned=1 discarded=0");
      expect(warned(warn, host)).toContain(`${instance}/endpoints/broken: its secrets cannot be opened`);
    } finally {
      warn.mockRestore();
      await subscriber.close();
      await host.stop();
      await serviceBus.close();
    }
  });
});

describe("an endpoint stored before the allow-list (or under another one)", () => {
  const cloudEvent = (id: string): CloudEvent => ({
    id,
    source: "/twins/test",
    specversion: "1.0",
    type: "Twin.Update",
  });
  // A listener that counts connections: delivery must not even open one to a refused host.
  let listener: net.Server;
  let connections = 0;
  let port: number;
  beforeAll(async () => {
    listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  async function onlyEndpoint(host: TestHost): Promise<DeliveryEndpoint> {
    const { endpoints } = await host.services.endpoints.listForDelivery({
      subscriptionId: "00000000-0000-0000-0000-000000000002",
      resourceGroupName: "rg",
      instanceName: "plant",
    });
    expect(endpoints.map((endpoint) => endpoint.name)).toEqual(["local"]);
    return endpoints[0] as DeliveryEndpoint;
  }

  it("is read but never delivered to, nor dead-lettered through, where the allow-list no longer admits it", async () => {
    const local = `Endpoint=sb://127.0.0.1:${port}/;SharedAccessKeyName=send;SharedAccessKey=${KEY};UseDevelopmentEmulator=true;EntityPath=topic`;
    const loopbackHost = await startTestHost({ DELIVERY_SEND_TIMEOUT_MS: "500" });
    const databaseId = loopbackHost.config.COSMOS_DATABASE;
    try {
      const created = await put(loopbackHost, `${INSTANCE}/endpoints/local`, {
        queuePrimaryConnectionString: local,
        queueSecondaryConnectionString: local,
        deadLetterStorageSecret: `http://127.0.0.1:${port}/devstoreaccount1/dead?sv=2022-11-02&sp=cw&sig=${SIGNATURE}`,
      });
      expect(created.status).toBe(201);
      // Where loopback is allowed, delivery does reach the listener (so the count below can fail).
      const reachable = await onlyEndpoint(loopbackHost);
      expect(sasUrlOf(reachable)).toBeDefined();
      const attempt = await deliverToEndpoint(loopbackHost.services.senders, reachable, [cloudEvent("e0")]);
      expect(attempt.failed).toHaveLength(1);
      expect(connections).toBeGreaterThan(0);
    } finally {
      await loopbackHost.stop();
    }

    connections = 0;
    const azureHost = await startTestHost({ ALLOW_LOOPBACK_ENDPOINTS: "false" }, databaseId);
    // Reading the endpoint warns that its dead-letter URL is not admitted (checked below).
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      expect((await azureHost.request(`${INSTANCE}/endpoints/local`)).status).toBe(200);
      const endpoint = await onlyEndpoint(azureHost);
      expect(connectionOf(endpoint)).toBe(local);
      expect(sasUrlOf(endpoint)).toBeUndefined();
      const result = await deliverToEndpoint(azureHost.services.senders, endpoint, [cloudEvent("e1")]);
      expect(result.delivered).toEqual([]);
      expect(result.failed).toHaveLength(1);
      expect(result.lastError).toMatch(/SERVICEBUS_HOST_SUFFIXES/);
      expect(result.lastError).not.toContain(KEY);
      expect(connections).toBe(0);
      // A change keeps nothing that points where the allow-list does not admit.
      await expectArmError(
        await azureHost.request(`${INSTANCE}/endpoints/local`, {
          method: "PATCH",
          body: JSON.stringify({ deadLetterStorageSecret: null }),
        }),
        400,
        "InvalidRequestContent",
        "queuePrimaryConnectionString",
      );
      expect(warned(warn, azureHost)).toContain(
        "endpoints/local: its deadLetterStorageSecret points where STORAGE_HOST_SUFFIXES and ALLOW_LOOPBACK_ENDPOINTS do not admit",
      );
    } finally {
      warn.mockRestore();
      await azureHost.stop();
    }
  });
});
