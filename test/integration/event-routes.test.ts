import { expectArmError } from "../support/arm";
import { startTestHost, type TestHost } from "../support/test-host";

// EventRoute, docs/api.md: every operation and rule over HTTP (the races: event-route-races.test.ts).
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/Twins-RG/providers/Microsoft.DigitalTwins/digitalTwinsInstances/Routed-1";
const connection = (key: string) =>
  `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=twin-events`;
const endpointBody = {
  queuePrimaryConnectionString: connection("a2V5"),
  queueSecondaryConnectionString: connection("a2V5Mg=="),
};

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ ROUTES_PER_INSTANCE_MAX: "3" });
});
afterAll(() => host.stop());

function put(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return host.request(path, { method: "PUT", body: JSON.stringify(body), headers });
}
const del = (path: string, headers: Record<string, string> = {}) =>
  host.request(path, { method: "DELETE", headers });
const endpoint = (name: string, instance = INSTANCE) => `${instance}/endpoints/${name}`;
const route = (name: string, instance = INSTANCE) => `${instance}/eventRoutes/${name}`;
const FILTER = "type = 'Microsoft.DigitalTwins.Twin.Update' AND $body.temperature > 30";

async function instanceWithEndpoint(instanceName: string, endpointName = "hot") {
  const instance = INSTANCE.replace("Routed-1", instanceName);
  expect([200, 201]).toContain((await put(endpoint(endpointName, instance), endpointBody)).status);
  return instance;
}

describe("create, read, replace, delete, list", () => {
  it("answers 201 with the route, its id, name and systemData, and an ETag; GET and the list show it", async () => {
    const instance = await instanceWithEndpoint("Crud-1");
    const created = await put(route("Hot-Machines", instance), { endpointName: "hot", filter: FILTER });
    expect(created.status).toBe(201);
    const etag = created.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);
    const body = await created.json();
    expect(body).toEqual({
      id: `${instance}/eventRoutes/Hot-Machines`,
      name: "Hot-Machines",
      endpointName: "hot",
      filter: FILTER,
      systemData: expect.objectContaining({ createdByType: "Key", lastModifiedBy: "default" }),
    });
    const read = await host.request(route("hot-machines", instance.toLowerCase()));
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).toBe(etag);
    expect(await read.json()).toEqual(body);
    const list = await host.request(`${instance}/eventRoutes`);
    expect(await list.json()).toEqual({ value: [body] });
    // The endpoints' list is not the routes' list, and neither counts the other.
    const endpoints = (await (await host.request(`${instance}/endpoints`)).json()) as {
      value: { name: string }[];
    };
    expect(endpoints.value.map((each) => each.name)).toEqual(["hot"]);
  });

  it("replaces with 200 (a new filter, another endpoint), honours If-Match, and deletes with 200 then 204", async () => {
    const instance = await instanceWithEndpoint("Crud-2");
    expect((await put(endpoint("cold", instance), endpointBody)).status).toBe(201);
    const created = await put(route("r-1", instance), { endpointName: "hot", filter: "true" });
    const etag = created.headers.get("etag") as string;
    const replaced = await put(
      route("r-1", instance),
      { endpointName: "cold", filter: "false" },
      { "If-Match": etag },
    );
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ endpointName: "cold", filter: "false" });
    await expectArmError(
      await put(route("r-1", instance), { endpointName: "cold", filter: "true" }, { "If-Match": etag }),
      412,
      "PreconditionFailed",
    );
    await expectArmError(await del(route("r-1", instance), { "If-Match": etag }), 412, "PreconditionFailed");
    expect((await del(route("r-1", instance))).status).toBe(200);
    expect((await del(route("r-1", instance))).status).toBe(204);
    await expectArmError(await host.request(route("r-1", instance)), 404, "ResourceNotFound");
  });
});

describe("what a route may name", () => {
  it("refuses a route to an endpoint that does not exist: 400 naming it", async () => {
    const instance = await instanceWithEndpoint("Names-1");
    const error = await expectArmError(
      await put(route("to-nowhere", instance), { endpointName: "missing", filter: "true" }),
      400,
      "InvalidRequestContent",
      "endpointName",
    );
    expect(error.message).toContain("'missing'");
    await expectArmError(await host.request(route("to-nowhere", instance)), 404, "ResourceNotFound");
  });

  it("refuses an endpoint of another instance, though one of that name exists there", async () => {
    await instanceWithEndpoint("Names-2", "elsewhere");
    const instance = await instanceWithEndpoint("Names-3");
    await expectArmError(
      await put(route("across", instance), { endpointName: "elsewhere", filter: "true" }),
      400,
      "InvalidRequestContent",
      "endpointName",
    );
  });

  it("refuses to delete an endpoint that routes name (409 naming them), and deletes it once they are gone", async () => {
    const instance = await instanceWithEndpoint("Names-4");
    for (const name of ["first", "second"])
      expect((await put(route(name, instance), { endpointName: "HOT", filter: "true" })).status).toBe(201);
    const error = await expectArmError(await del(endpoint("hot", instance)), 409, "EndpointInUse");
    expect(error.message).toContain("'first', 'second'");
    expect((await host.request(endpoint("hot", instance))).status).toBe(200);
    // A conditional delete is refused the same way.
    const etag = (await host.request(endpoint("hot", instance))).headers.get("etag") as string;
    await expectArmError(await del(endpoint("hot", instance), { "If-Match": etag }), 409, "EndpointInUse");
    expect((await del(route("first", instance))).status).toBe(200);
    await expectArmError(await del(endpoint("hot", instance)), 409, "EndpointInUse");
    expect((await del(route("second", instance))).status).toBe(200);
    expect((await del(endpoint("hot", instance))).status).toBe(200);
  });
});

describe("bad bodies", () => {
  it("names the filter's position and what was expected, beside other fields' problems", async () => {
    const instance = await instanceWithEndpoint("Bodies-1");
    const error = await expectArmError(
      await put(route("bad", instance), { endpointName: "-x", filter: "type = " }),
      400,
      "InvalidRequestContent",
    );
    const messages = (error.details ?? []).map((detail) => `${detail.target}: ${detail.message}`);
    expect(messages).toEqual([
      expect.stringMatching(/^endpointName: The field 'endpointName' must be 3 to 50/),
      expect.stringMatching(/^filter: The field 'filter' is not valid at position 8 .*expected/),
    ]);
  });

  it.each([
    ["no filter", { endpointName: "hot" }, "filter"],
    ["no endpoint", { filter: "true" }, "endpointName"],
    ["an empty filter", { endpointName: "hot", filter: "" }, "filter"],
    ["a number for a filter", { endpointName: "hot", filter: 5 }, "filter"],
    ["an unknown property", { endpointName: "hot", filter: "true", extra: 1 }, "extra"],
    ["another name", { endpointName: "hot", filter: "true", name: "other" }, "name"],
    [
      "40 levels of parentheses",
      { endpointName: "hot", filter: `${"(".repeat(40)}true${")".repeat(40)}` },
      "filter",
    ],
    [
      "a filter of 2,112 characters",
      { endpointName: "hot", filter: `subject = '${"x".repeat(2100)}'` },
      "filter",
    ],
  ])("refuses %s (400, target %s)", async (_what, body, target) => {
    const instance = await instanceWithEndpoint("Bodies-2");
    const error = await expectArmError(await put(route("bad", instance), body), 400, "InvalidRequestContent");
    expect([error.target, ...(error.details ?? []).map((detail) => detail.target)]).toContain(target);
  });
});

describe("the quota", () => {
  it("stores at most ROUTES_PER_INSTANCE_MAX routes per instance (409), counting each instance apart", async () => {
    const instance = await instanceWithEndpoint("Quota-1");
    for (const name of ["q-1", "q-2", "q-3"])
      expect((await put(route(name, instance), { endpointName: "hot", filter: "true" })).status).toBe(201);
    await expectArmError(
      await put(route("q-4", instance), { endpointName: "hot", filter: "true" }),
      409,
      "QuotaExceeded",
    );
    // A replace is no new route.
    expect((await put(route("q-3", instance), { endpointName: "hot", filter: "false" })).status).toBe(200);
    const other = await instanceWithEndpoint("Quota-2");
    expect((await put(route("q-4", other), { endpointName: "hot", filter: "true" })).status).toBe(201);
  });
});
