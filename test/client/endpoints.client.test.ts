import { endpointId, parseEndpointId, ServiceError, type TwinServiceClient } from "../../client";
import { startTestHost, type TestHost } from "../support/test-host";
import {
  clientFor,
  collect,
  connectionString,
  DEAD_LETTER,
  ENDPOINT_INPUT,
  IDENTITY_ENDPOINT_INPUT,
  instanceId,
  keyBased,
  keySystemData,
  PRIMARY_KEY,
  rejection,
  SECRETS,
} from "./fixtures";

// The client's QueueEndpoint calls against the local stack (docs/api.md).
const INSTANCE = instanceId("Factory-1");
const MASKED_PRIMARY = connectionString("***");

let host: TestHost;
let client: TwinServiceClient;
beforeAll(async () => {
  host = await startTestHost({ ENDPOINTS_PER_INSTANCE_MAX: "3" });
  client = clientFor(host);
});
afterAll(() => host.stop());

describe("create, read, update, delete", () => {
  it("put creates the endpoint and answers it masked, with its id and etag", async () => {
    const created = await client.endpoints.put(INSTANCE, "orders", ENDPOINT_INPUT);
    expect(created).toEqual({
      id: `${INSTANCE}/endpoints/orders`,
      name: "orders",
      twinsInstanceId: INSTANCE,
      authenticationType: "KeyBased",
      queuePrimaryConnectionString: MASKED_PRIMARY,
      queueSecondaryConnectionString: connectionString("***", "send2"),
      deadLetterStorageSecret: "https://deadletters.blob.core.windows.net/dead-letters?***",
      etag: expect.stringMatching(/^".+"$/),
      created: true,
      systemData: keySystemData(),
    });
    for (const secret of SECRETS) expect(JSON.stringify(created)).not.toContain(secret);
  });

  it("get by the parts of the id (the import identifier) returns the endpoint", async () => {
    const id = endpointId(INSTANCE, "orders");
    const ref = parseEndpointId(id);
    expect(ref).toEqual({ twinsInstanceId: INSTANCE, name: "orders" });
    const read = await client.endpoints.get(ref?.twinsInstanceId as string, ref?.name as string);
    expect(read.id).toBe(id);
    expect(read.etag).toMatch(/^".+"$/);
  });

  it("update with deadLetterStorageSecret: null removes it; getIfChanged sees the change", async () => {
    const before = await client.endpoints.get(INSTANCE, "orders");
    const updated = await client.endpoints.update(INSTANCE, "orders", { deadLetterStorageSecret: null });
    expect(keyBased(updated).deadLetterStorageSecret).toBeUndefined();
    expect(await client.endpoints.getIfChanged(INSTANCE, "orders", updated.etag)).toBeUndefined();
    expect((await client.endpoints.getIfChanged(INSTANCE, "orders", before.etag))?.etag).toBe(updated.etag);
  });

  it("delete answers true, then false", async () => {
    await client.endpoints.put(INSTANCE, "short-lived", ENDPOINT_INPUT);
    expect(await client.endpoints.delete(INSTANCE, "short-lived")).toBe(true);
    expect(await client.endpoints.delete(INSTANCE, "short-lived")).toBe(false);
  });

  it("refuses a twinsInstanceId that is not an instance id before sending anything", async () => {
    await expect(client.endpoints.get("/subscriptions/x/../../health", "orders")).rejects.toThrow(RangeError);
  });
});

describe("auto-naming", () => {
  it("create without a name makes <logical name>-<7 random chars>, valid under the endpoint-name rule", async () => {
    const created = await client.endpoints.create(instanceId("auto-named"), ENDPOINT_INPUT, {
      logicalName: "orders topic",
    });
    expect(created.name).toMatch(/^orders-topic-[a-z0-9]{7}$/);
    expect(created.id).toBe(`${instanceId("auto-named")}/endpoints/${created.name}`);
    const another = await client.endpoints.create(instanceId("auto-named"), ENDPOINT_INPUT, {
      logicalName: "orders topic",
    });
    expect(another.name).not.toBe(created.name);
  });

  it("create with a name uses it, and refuses one that exists (412)", async () => {
    await client.endpoints.create(instanceId("named"), ENDPOINT_INPUT, { name: "fixed" });
    const error = (await rejection(() =>
      client.endpoints.create(instanceId("named"), ENDPOINT_INPUT, { name: "fixed" }),
    )) as ServiceError;
    expect({ status: error.status, code: error.code }).toEqual({ status: 412, code: "PreconditionFailed" });
  });
});

describe("errors", () => {
  it("400 names the failing field as target, and never quotes a secret", async () => {
    const error = (await rejection(() =>
      client.endpoints.put(INSTANCE, "bad", {
        ...ENDPOINT_INPUT,
        queueSecondaryConnectionString: `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKey=${PRIMARY_KEY}`,
      }),
    )) as ServiceError;
    expect({ status: error.status, code: error.code, target: error.target }).toEqual({
      status: 400,
      code: "InvalidRequestContent",
      target: "queueSecondaryConnectionString",
    });
    expect(error.details.map((detail) => detail.target)).toContain("queueSecondaryConnectionString");
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(PRIMARY_KEY);
  });

  it("409 QuotaExceeded past the endpoints-per-instance quota", async () => {
    const full = instanceId("full-instance");
    for (const name of ["one", "two", "three"]) await client.endpoints.put(full, name, ENDPOINT_INPUT);
    const error = (await rejection(() => client.endpoints.put(full, "four", ENDPOINT_INPUT))) as ServiceError;
    expect({ status: error.status, code: error.code }).toEqual({ status: 409, code: "QuotaExceeded" });
  });

  it("404 ResourceNotFound for an endpoint that does not exist", async () => {
    const error = (await rejection(() => client.endpoints.get(INSTANCE, "missing"))) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect({ status: error.status, code: error.code }).toEqual({ status: 404, code: "ResourceNotFound" });
  });

  it("412 when ifMatch names an old version", async () => {
    const first = await client.endpoints.put(INSTANCE, "versioned", ENDPOINT_INPUT);
    await client.endpoints.update(INSTANCE, "versioned", { deadLetterStorageSecret: DEAD_LETTER });
    const error = (await rejection(() =>
      client.endpoints.put(INSTANCE, "versioned", ENDPOINT_INPUT, { ifMatch: first.etag }),
    )) as ServiceError;
    expect({ status: error.status, code: error.code, target: error.target }).toEqual({
      status: 412,
      code: "PreconditionFailed",
      target: "If-Match",
    });
  });
});

describe("identity-based endpoints", () => {
  const identityInstance = instanceId("identity-instance");

  it("put answers every field and no secret; update changes the given fields; null removes the dead-letter location", async () => {
    const created = await client.endpoints.put(identityInstance, "by-identity", IDENTITY_ENDPOINT_INPUT);
    expect(created).toEqual({
      id: `${identityInstance}/endpoints/by-identity`,
      name: "by-identity",
      twinsInstanceId: identityInstance,
      ...IDENTITY_ENDPOINT_INPUT,
      etag: expect.stringMatching(/^".+"$/),
      created: true,
      systemData: keySystemData(),
    });
    const updated = await client.endpoints.update(identityInstance, "by-identity", {
      entityPath: "other-topic",
      deadLetterUri: null,
    });
    expect(updated.authenticationType).toBe("IdentityBased");
    expect(updated).toMatchObject({
      entityPath: "other-topic",
      endpointUri: IDENTITY_ENDPOINT_INPUT.endpointUri,
    });
    expect(updated).not.toHaveProperty("deadLetterUri");
  });

  it("refuses a change of authenticationType with a 400 naming it", async () => {
    await client.endpoints.put(identityInstance, "fixed-kind", IDENTITY_ENDPOINT_INPUT);
    const error = (await rejection(() =>
      client.endpoints.put(identityInstance, "fixed-kind", ENDPOINT_INPUT),
    )) as ServiceError;
    expect({ status: error.status, target: error.target }).toEqual({
      status: 400,
      target: "authenticationType",
    });
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(PRIMARY_KEY);
  });
});

describe("paging", () => {
  it("lists an instance's endpoints across pages", async () => {
    const paged = instanceId("paged-instance");
    for (const name of ["p-one", "p-two", "p-three"]) await client.endpoints.put(paged, name, ENDPOINT_INPUT);
    const first = await client.endpoints.listPage(paged, { top: 2 });
    expect(first.value).toHaveLength(2);
    expect(first.nextLink).toBeDefined();
    const all = await collect(client.endpoints.list(paged, { top: 2 }));
    expect(all.map((endpoint) => endpoint.name).sort()).toEqual(["p-one", "p-three", "p-two"]);
    expect(all.every((endpoint) => keyBased(endpoint).queuePrimaryConnectionString === MASKED_PRIMARY)).toBe(
      true,
    );
  });
});
