import { eventRouteId, parseEventRouteId, ServiceError, type TwinServiceClient } from "../../client";
import { startTestHost, type TestHost } from "../support/test-host";
import { clientFor, collect, ENDPOINT_INPUT, instanceId, keySystemData, rejection } from "./fixtures";

// The client's EventRoute calls against the local stack (docs/api.md). A route names an endpoint
// of its instance, which must exist first: each instance gets one through the client.
const ROUTES_MAX = 3;
const FILTER = "type = 'Microsoft.DigitalTwins.Twin.Update' AND $body.temperature > 30";

let host: TestHost;
let client: TwinServiceClient;
beforeAll(async () => {
  host = await startTestHost({ ROUTES_PER_INSTANCE_MAX: String(ROUTES_MAX) });
  client = clientFor(host);
});
afterAll(() => host.stop());

/** An instance with the endpoints named (default: "hot"), made through the client. */
async function instanceWith(instanceName: string, endpoints: string[] = ["hot"]): Promise<string> {
  const instance = instanceId(instanceName);
  for (const name of endpoints) await client.endpoints.put(instance, name, ENDPOINT_INPUT);
  return instance;
}

function serviceError(error: unknown) {
  expect(error).toBeInstanceOf(ServiceError);
  const { status, code, target } = error as ServiceError;
  return { status, code, target };
}

describe("create, read, replace, delete", () => {
  it("put creates the route (201) with its id, name, systemData and etag; get reads it back", async () => {
    const instance = await instanceWith("Routes-Crud");
    const created = await client.eventRoutes.put(instance, "hot-machines", {
      endpointName: "hot",
      filter: FILTER,
    });
    expect(created).toEqual({
      id: `${instance}/eventRoutes/hot-machines`,
      name: "hot-machines",
      endpointName: "hot",
      filter: FILTER,
      systemData: keySystemData(),
      etag: expect.stringMatching(/^".+"$/),
      created: true,
    });
    const ref = parseEventRouteId(eventRouteId(instance, "hot-machines"));
    expect(ref).toEqual({ twinsInstanceId: instance, name: "hot-machines" });
    const read = await client.eventRoutes.get(ref?.twinsInstanceId as string, ref?.name as string);
    const { created: _created, ...withoutCreated } = created;
    expect(read).toEqual(withoutCreated);
  });

  it("put replaces (200) another endpoint and filter; ifMatch of an old etag is refused with 412", async () => {
    const instance = await instanceWith("Routes-Replace", ["hot", "cold"]);
    const first = await client.eventRoutes.put(instance, "r-1", { endpointName: "hot", filter: "true" });
    const replaced = await client.eventRoutes.put(
      instance,
      "r-1",
      { endpointName: "cold", filter: "false" },
      { ifMatch: first.etag },
    );
    expect(replaced).toMatchObject({ created: false, endpointName: "cold", filter: "false" });
    expect(replaced.etag).not.toBe(first.etag);
    const stale = await rejection(() =>
      client.eventRoutes.put(
        instance,
        "r-1",
        { endpointName: "hot", filter: "true" },
        { ifMatch: first.etag },
      ),
    );
    expect(serviceError(stale)).toEqual({ status: 412, code: "PreconditionFailed", target: "If-Match" });
  });

  it("create with ifNoneMatch: * refuses a route that exists (412); without a name it auto-names", async () => {
    const instance = await instanceWith("Routes-Create");
    await client.eventRoutes.create(instance, { endpointName: "hot", filter: "true" }, { name: "fixed" });
    const taken = await rejection(() =>
      client.eventRoutes.create(instance, { endpointName: "hot", filter: "true" }, { name: "fixed" }),
    );
    expect(serviceError(taken)).toMatchObject({ status: 412, code: "PreconditionFailed" });
    const named = await client.eventRoutes.create(
      instance,
      { endpointName: "hot", filter: "true" },
      { logicalName: "hot route" },
    );
    expect(named.name).toMatch(/^hot-route-[a-z0-9]{7}$/);
  });

  it("getIfChanged answers undefined for the current etag and the route for an old one", async () => {
    const instance = await instanceWith("Routes-Conditional");
    const first = await client.eventRoutes.put(instance, "watched", { endpointName: "hot", filter: "true" });
    expect(await client.eventRoutes.getIfChanged(instance, "watched", first.etag)).toBeUndefined();
    const second = await client.eventRoutes.put(instance, "watched", {
      endpointName: "hot",
      filter: "false",
    });
    expect((await client.eventRoutes.getIfChanged(instance, "watched", first.etag))?.etag).toBe(second.etag);
  });

  it("delete answers true then false; a conditional delete with an old etag is refused (412)", async () => {
    const instance = await instanceWith("Routes-Delete");
    const first = await client.eventRoutes.put(instance, "short", { endpointName: "hot", filter: "true" });
    await client.eventRoutes.put(instance, "short", { endpointName: "hot", filter: "false" });
    const stale = await rejection(() =>
      client.eventRoutes.delete(instance, "short", { ifMatch: first.etag }),
    );
    expect(serviceError(stale)).toMatchObject({ status: 412, code: "PreconditionFailed" });
    expect(await client.eventRoutes.delete(instance, "short")).toBe(true);
    expect(await client.eventRoutes.delete(instance, "short")).toBe(false);
    const gone = await rejection(() => client.eventRoutes.get(instance, "short"));
    expect(serviceError(gone)).toMatchObject({ status: 404, code: "ResourceNotFound" });
  });

  it("refuses a name that is not a path segment, and a bad instance id, before sending anything", async () => {
    const instance = instanceId("Routes-Local");
    await expect(client.eventRoutes.get(instance, "..")).rejects.toThrow(/event route name/);
    await expect(client.eventRoutes.get("/subscriptions/x/../../health", "r")).rejects.toThrow(RangeError);
  });
});

describe("errors", () => {
  it("400 InvalidRequestContent with target endpointName when the endpoint does not exist", async () => {
    const instance = await instanceWith("Routes-No-Endpoint");
    const error = await rejection(() =>
      client.eventRoutes.put(instance, "to-nowhere", { endpointName: "missing", filter: "true" }),
    );
    expect(serviceError(error)).toEqual({
      status: 400,
      code: "InvalidRequestContent",
      target: "endpointName",
    });
    expect((error as ServiceError).message).toContain("'missing'");
  });

  it("400 with target filter, naming the position, for a filter that does not parse", async () => {
    const instance = await instanceWith("Routes-Bad-Filter");
    const error = await rejection(() =>
      client.eventRoutes.put(instance, "bad", { endpointName: "hot", filter: "type = " }),
    );
    expect(serviceError(error)).toEqual({ status: 400, code: "InvalidRequestContent", target: "filter" });
    const detail = (error as ServiceError).details.find((each) => each.target === "filter");
    expect(detail?.message).toMatch(/position 8/);
  });

  it("409 QuotaExceeded past the routes-per-instance quota; replacing an existing one still works", async () => {
    const instance = await instanceWith("Routes-Full");
    for (let index = 1; index <= ROUTES_MAX; index++) {
      await client.eventRoutes.put(instance, `route-${index}`, { endpointName: "hot", filter: "true" });
    }
    const error = await rejection(() =>
      client.eventRoutes.put(instance, "one-too-many", { endpointName: "hot", filter: "true" }),
    );
    expect(serviceError(error)).toMatchObject({ status: 409, code: "QuotaExceeded" });
    const replaced = await client.eventRoutes.put(instance, "route-1", {
      endpointName: "hot",
      filter: "false",
    });
    expect(replaced.created).toBe(false);
  });

  it("409 EndpointInUse deleting an endpoint a route names, until the route is gone", async () => {
    const instance = await instanceWith("Routes-In-Use");
    await client.eventRoutes.put(instance, "uses-hot", { endpointName: "hot", filter: "true" });
    const error = await rejection(() => client.endpoints.delete(instance, "hot"));
    expect(serviceError(error)).toMatchObject({ status: 409, code: "EndpointInUse" });
    expect((error as ServiceError).message).toContain("'uses-hot'");
    expect(await client.eventRoutes.delete(instance, "uses-hot")).toBe(true);
    expect(await client.endpoints.delete(instance, "hot")).toBe(true);
  });
});

describe("paging", () => {
  it("lists an instance's routes, and only routes, across pages", async () => {
    const instance = await instanceWith("Routes-Paged");
    for (const name of ["p-one", "p-two", "p-three"]) {
      await client.eventRoutes.put(instance, name, { endpointName: "hot", filter: "true" });
    }
    const first = await client.eventRoutes.listPage(instance, { top: 2 });
    expect(first.value).toHaveLength(2);
    expect(first.nextLink).toBeDefined();
    const second = await client.eventRoutes.listPage(instance, { nextLink: first.nextLink as string });
    expect(second.value).toHaveLength(1);
    expect(second.nextLink).toBeUndefined();
    const pages = await collect(client.eventRoutes.list(instance, { top: 2 }).byPage());
    expect(pages.map((page) => page.value.length)).toEqual([2, 1]);
    const all = await collect(client.eventRoutes.list(instance, { top: 2 }));
    expect(all.map((route) => route.name).sort()).toEqual(["p-one", "p-three", "p-two"]);
    // The instance's endpoint shares its partition, and is not listed among its routes.
    expect(all.every((route) => route.id.includes("/eventRoutes/"))).toBe(true);
  });
});

describe("testFilter", () => {
  const EVENT = {
    id: "t-1",
    source: "/tests",
    specversion: "1.0" as const,
    type: "Twin.Update",
    data: { temperature: 35 },
  };

  it("answers whether the filter lets the event through, and when not, why", async () => {
    const instance = instanceId("Routes-Test-Filter");
    expect(
      await client.eventRoutes.testFilter(instance, { filter: "$body.temperature > 30", event: EVENT }),
    ).toEqual({
      matches: true,
    });
    const miss = await client.eventRoutes.testFilter(instance, {
      filter: "type = 'Twin.Create'",
      event: EVENT,
    });
    expect(miss).toEqual({
      matches: false,
      reason: expect.stringContaining("type = 'Twin.Create' was false"),
    });
  });

  it("a filter that does not parse is a ServiceError 400 with target filter", async () => {
    const error = await rejection(() =>
      client.eventRoutes.testFilter(instanceId("Routes-Test-Filter"), {
        filter: "temperature >",
        event: EVENT,
      }),
    );
    expect(serviceError(error)).toEqual({ status: 400, code: "InvalidRequestContent", target: "filter" });
  });
});
