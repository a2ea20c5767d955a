import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { ServiceError, TwinServiceClient } from "../../client";
import { clientFor, ENDPOINT_INPUT, instanceId, rejection, SECRETS } from "../../test/client/fixtures";
import { FUNCTION_KEY, startTestHost, type TestHost } from "../../test/support/test-host";
import {
  EventRouteProvider,
  type EventRouteProviderInputs,
  type EventRouteProviderOutputs,
} from "../src/event-route-provider";
import { ENVIRONMENT } from "../src/service-connection";

// The EventRoute provider's operations, called directly against the local stack, in the order the
// engine calls them (check, diff, then create / update / delete). Its endpoints are made through
// the client first: a route must name an existing endpoint of its instance.
const INSTANCE = instanceId("Pulumi-Routes");
const FILTER = "type = 'Microsoft.DigitalTwins.Twin.Update' AND $body.temperature > 30";

let host: TestHost;
let client: TwinServiceClient;
let connection: { serviceEndpoint: string; serviceKey: string };
const provider = new EventRouteProvider();
beforeAll(async () => {
  host = await startTestHost({ ROUTES_PER_INSTANCE_MAX: "50" });
  client = clientFor(host);
  connection = { serviceEndpoint: host.baseUrl, serviceKey: FUNCTION_KEY };
  for (const endpoint of ["hot", "cold"]) await client.endpoints.put(INSTANCE, endpoint, ENDPOINT_INPUT);
});
afterAll(() => host.stop());

function inputs(
  name: string | undefined,
  changes: Partial<EventRouteProviderInputs> = {},
): EventRouteProviderInputs {
  return {
    twinsInstanceId: INSTANCE,
    endpointName: "hot",
    filter: FILTER,
    ...(name !== undefined && { name }),
    ...connection,
    ...changes,
  };
}

/** The state a named route's create leaves: its inputs, as outputs. */
function state(name: string): EventRouteProviderOutputs {
  return { ...inputs(name), name };
}

describe("check: auto-naming", () => {
  it("names an unnamed route <logical name>-<7 random chars>, and keeps that name on later checks", async () => {
    const first = await provider.check({}, inputs(undefined, { logicalName: "hot-route" }));
    expect(first.inputs.name).toMatch(/^hot-route-[a-z0-9]{7}$/);
    const again = await provider.check(
      first.inputs,
      inputs(undefined, { logicalName: "hot-route", filter: "true" }),
    );
    expect(again.inputs.name).toBe(first.inputs.name);
  });

  it("names it anew when a new endpointName replaces it, so the replacement is created first", async () => {
    const first = await provider.check({}, inputs(undefined, { logicalName: "moving" }));
    const moved = await provider.check(
      first.inputs,
      inputs(undefined, { logicalName: "moving", endpointName: "cold" }),
    );
    expect(moved.inputs.name).toMatch(/^moving-[a-z0-9]{7}$/);
    expect(moved.inputs.name).not.toBe(first.inputs.name);
    const diff = await provider.diff("id", state(first.inputs.name as string), moved.inputs);
    expect(diff).toMatchObject({ replaces: ["name", "endpointName"], deleteBeforeReplace: false });
  });

  it("takes the name of the import id, and leaves a given name alone", async () => {
    const imported = await provider.check(
      {},
      inputs(undefined, { importId: `${INSTANCE}/eventRoutes/legacy` }),
    );
    expect(imported.inputs.name).toBe("legacy");
    expect((await provider.check({}, inputs("given"))).inputs.name).toBe("given");
  });
});

describe("diff", () => {
  const olds = state("named");
  it.each([
    ["filter", "true"],
    ["serviceEndpoint", "http://127.0.0.1:1"],
    ["serviceKey", "another"],
  ] as const)("updates %s in place", async (field, value) => {
    expect(await provider.diff("id", olds, { ...olds, [field]: value })).toEqual({
      changes: true,
      replaces: [],
      stables: ["twinsInstanceId", "name", "endpointName"],
      deleteBeforeReplace: false,
    });
  });

  it("replaces on endpointName, deleting first when the route keeps its name (the same id)", async () => {
    expect(await provider.diff("id", olds, { ...olds, endpointName: "cold" })).toEqual({
      changes: true,
      replaces: ["endpointName"],
      stables: ["twinsInstanceId", "name"],
      deleteBeforeReplace: true,
    });
  });

  it("replaces on a new name or instance, creating first; a casing alone deletes first", async () => {
    expect(await provider.diff("id", olds, { ...olds, name: "renamed" })).toMatchObject({
      replaces: ["name"],
      deleteBeforeReplace: false,
    });
    expect(
      await provider.diff("id", olds, { ...olds, twinsInstanceId: instanceId("elsewhere") }),
    ).toMatchObject({
      replaces: ["twinsInstanceId"],
      deleteBeforeReplace: false,
    });
    expect(await provider.diff("id", olds, { ...olds, name: "NAMED" })).toMatchObject({
      deleteBeforeReplace: true,
    });
  });

  it("reports no change for the same inputs, whatever the import id or logical name", async () => {
    const diff = await provider.diff("id", olds, { ...olds, importId: "x", logicalName: "other" });
    expect(diff).toMatchObject({ changes: false, replaces: [] });
  });
});

describe("create", () => {
  it("creates the route; the id is its full path; the outputs are the inputs", async () => {
    const created = await provider.create(inputs("created"));
    expect(created).toEqual({ id: `${INSTANCE}/eventRoutes/created`, outs: { ...inputs("created") } });
    expect(await client.eventRoutes.get(INSTANCE, "created")).toMatchObject({
      endpointName: "hot",
      filter: FILTER,
    });
  });

  it("fails rather than take over a route that exists (412)", async () => {
    await client.eventRoutes.put(INSTANCE, "taken", { endpointName: "hot", filter: FILTER });
    const error = (await rejection(() => provider.create(inputs("taken")))) as ServiceError;
    expect({ status: error.status, code: error.code }).toEqual({ status: 412, code: "PreconditionFailed" });
  });

  it("fails with the service's 400 when the endpoint does not exist, or the filter does not parse", async () => {
    const missing = (await rejection(() =>
      provider.create(inputs("to-nowhere", { endpointName: "missing" })),
    )) as ServiceError;
    expect({ status: missing.status, target: missing.target }).toEqual({
      status: 400,
      target: "endpointName",
    });
    const bad = (await rejection(() =>
      provider.create(inputs("bad-filter", { filter: "type = " })),
    )) as ServiceError;
    expect({ status: bad.status, target: bad.target }).toEqual({ status: 400, target: "filter" });
  });

  it("with an import id, adopts the route when the program matches it (names in any casing)", async () => {
    const existing = await client.eventRoutes.put(INSTANCE, "Legacy", {
      endpointName: "HOT",
      filter: FILTER,
    });
    const adopted = await provider.create(inputs("legacy", { importId: existing.id }));
    expect(adopted.id).toBe(existing.id);
    // The program's casing is kept, so the next diff plans nothing.
    expect(adopted.outs).toMatchObject({ name: "legacy", endpointName: "hot" });
    expect(await provider.diff(adopted.id, adopted.outs, inputs("legacy"))).toMatchObject({ changes: false });
  });

  it("with an import id, refuses a route that differs, naming the fields", async () => {
    const existing = await client.eventRoutes.put(INSTANCE, "legacy-2", {
      endpointName: "hot",
      filter: "true",
    });
    const error = (await rejection(() =>
      provider.create(inputs("legacy-2", { importId: existing.id, endpointName: "cold" })),
    )) as Error;
    expect(error.message).toMatch(/differs from the program in endpointName, filter/);
    expect(await client.eventRoutes.get(INSTANCE, "legacy-2")).toMatchObject({
      endpointName: "hot",
      filter: "true",
    });
  });
});

describe("read: import, refresh and drift", () => {
  it("reads from the id alone (pulumi import, get), with the connection from the environment", async () => {
    const created = await provider.create(inputs("import-me"));
    const saved = { ...process.env };
    process.env[ENVIRONMENT.endpoint] = host.baseUrl;
    process.env[ENVIRONMENT.key] = FUNCTION_KEY;
    try {
      expect(await new EventRouteProvider().read(created.id)).toEqual({
        id: created.id,
        props: { twinsInstanceId: INSTANCE, name: "import-me", endpointName: "hot", filter: FILTER },
      });
    } finally {
      process.env = saved;
    }
  });

  it("refresh of an unchanged route answers its state as it is", async () => {
    const created = await provider.create(inputs("refreshed"));
    expect(await provider.read(created.id, created.outs)).toEqual({ id: created.id, props: created.outs });
  });

  it("a filter changed outside Pulumi shows, and the next update writes the program's back in place", async () => {
    const created = await provider.create(inputs("drifted-filter"));
    await client.eventRoutes.put(INSTANCE, "drifted-filter", { endpointName: "hot", filter: "false" });
    const read = await provider.read(created.id, created.outs);
    expect(read.props).toEqual({ ...created.outs, filter: "false" });
    const diff = await provider.diff(created.id, read.props as never, inputs("drifted-filter"));
    expect(diff).toMatchObject({ changes: true, replaces: [] });
  });

  it("an endpoint changed outside Pulumi shows, and the next update replaces the route", async () => {
    const created = await provider.create(inputs("drifted-endpoint"));
    await client.eventRoutes.put(INSTANCE, "drifted-endpoint", { endpointName: "cold", filter: FILTER });
    const read = await provider.read(created.id, created.outs);
    expect(read.props).toMatchObject({ endpointName: "cold" });
    const diff = await provider.diff(created.id, read.props as never, inputs("drifted-endpoint"));
    expect(diff).toMatchObject({ changes: true, replaces: ["endpointName"], deleteBeforeReplace: true });
  });

  it("answers no id for a route deleted outside Pulumi, and refuses an id that is not a route's", async () => {
    const created = await provider.create(inputs("vanishing"));
    await client.eventRoutes.delete(INSTANCE, "vanishing");
    expect(await provider.read(created.id, created.outs)).toEqual({});
    await expect(provider.read(`${INSTANCE}/endpoints/hot`, connection)).rejects.toThrow(
      /not an EventRoute id/,
    );
  });
});

describe("update, replace and delete", () => {
  it("update writes a new filter in place: the same id, a new version", async () => {
    const created = await provider.create(inputs("updatable"));
    const before = await client.eventRoutes.get(INSTANCE, "updatable");
    const news = inputs("updatable", { filter: "$body.temperature > 40" });
    expect(await provider.diff(created.id, created.outs, news)).toMatchObject({
      changes: true,
      replaces: [],
    });
    const updated = await provider.update(created.id, created.outs, news);
    expect(updated.outs).toEqual({ ...news });
    const after = await client.eventRoutes.get(INSTANCE, "updatable");
    expect(after).toMatchObject({ id: created.id, filter: "$body.temperature > 40" });
    expect(after.etag).not.toBe(before.etag);
    expect(after.systemData.createdAt).toBe(before.systemData.createdAt);
  });

  it("update does not recreate a route deleted meanwhile (412)", async () => {
    const created = await provider.create(inputs("gone-before-update"));
    await client.eventRoutes.delete(INSTANCE, "gone-before-update");
    const error = (await rejection(() =>
      provider.update(created.id, created.outs, inputs("gone-before-update", { filter: "true" })),
    )) as ServiceError;
    expect(error.status).toBe(412);
  });

  it("a new endpointName replaces the named route as the engine does it: delete, then create", async () => {
    const created = await provider.create(inputs("replaced"));
    const news = (await provider.check(created.outs, inputs("replaced", { endpointName: "cold" }))).inputs;
    const diff = await provider.diff(created.id, created.outs, news);
    expect(diff).toMatchObject({ replaces: ["endpointName"], deleteBeforeReplace: true });
    await provider.delete(created.id, created.outs);
    const replacement = await provider.create(news);
    expect(replacement.id).toBe(created.id);
    expect(await client.eventRoutes.get(INSTANCE, "replaced")).toMatchObject({ endpointName: "cold" });
  });

  it("a new endpointName replaces an unnamed route as the engine does it: create the new one, then delete", async () => {
    const first = (await provider.check({}, inputs(undefined, { logicalName: "unnamed" }))).inputs;
    const created = await provider.create(first);
    const news = (
      await provider.check(first, inputs(undefined, { logicalName: "unnamed", endpointName: "cold" }))
    ).inputs;
    expect(await provider.diff(created.id, created.outs, news)).toMatchObject({ deleteBeforeReplace: false });
    const replacement = await provider.create(news);
    await provider.delete(created.id, created.outs);
    expect(replacement.id).not.toBe(created.id);
    expect(await client.eventRoutes.get(INSTANCE, news.name as string)).toMatchObject({
      endpointName: "cold",
    });
    await expect(client.eventRoutes.get(INSTANCE, first.name as string)).rejects.toMatchObject({
      status: 404,
    });
  });

  it("delete removes the route (its endpoint can go then), and does not fail when it is already gone", async () => {
    const endpointOnly = instanceId("Pulumi-Routes-Delete");
    await client.endpoints.put(endpointOnly, "only", ENDPOINT_INPUT);
    const created = await provider.create(
      inputs("deletable", { twinsInstanceId: endpointOnly, endpointName: "only" }),
    );
    await expect(client.endpoints.delete(endpointOnly, "only")).rejects.toMatchObject({
      code: "EndpointInUse",
    });
    await provider.delete(created.id, created.outs);
    await expect(client.eventRoutes.get(endpointOnly, "deletable")).rejects.toMatchObject({ status: 404 });
    await expect(provider.delete(created.id, created.outs)).resolves.toBeUndefined();
    expect(await client.endpoints.delete(endpointOnly, "only")).toBe(true);
  });
});

describe("serialized, as Pulumi runs it (provider-serialization.test.ts does the same for the others)", () => {
  let scratch: string;
  // Beside the project (the .gitignore'd prefix), so the serialized code's requires resolve.
  beforeAll(() => {
    scratch = mkdtempSync(path.join(__dirname, ".serialized-provider-route-"));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("captures no secret and no endpoint, and runs check, create, update, read and delete", async () => {
    // An instance, as pulumi.dynamic.Resource serializes the module's provider.
    const instance = new EventRouteProvider();
    const serialized = await pulumi.runtime.serializeFunction(() => instance, { allowSecrets: true });
    expect(serialized.containsSecrets).toBe(false);
    for (const secret of SECRETS) expect(serialized.text).not.toContain(secret);
    expect(serialized.text).not.toContain(host.baseUrl);
    expect(serialized.text).not.toMatch(/require\(["'][./]/);
    const file = path.join(scratch, "route-run.js");
    writeFileSync(file, serialized.text);
    const loaded = (createRequire(file)(file) as { handler: () => EventRouteProvider }).handler();
    const { inputs: checked } = await loaded.check({}, inputs(undefined, { logicalName: "serialized" }));
    const created = await loaded.create(checked);
    const updated = await loaded.update(created.id, created.outs, { ...checked, filter: "true" });
    expect(updated.outs.filter).toBe("true");
    await loaded.delete(created.id, updated.outs);
    // Recognising the service's 404 relies on the error class surviving serialization.
    expect(await loaded.read(created.id, updated.outs)).toEqual({});
  });
});

describe("the EventRoute resource in a program (the engine mocked, as resources-under-mocks.test.ts does)", () => {
  const registered = new Map<
    string,
    { type: string; id: string | undefined; inputs: Record<string, unknown> }
  >();
  beforeAll(async () => {
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered.set(args.name, { type: args.type, id: args.id, inputs: args.inputs });
          return { id: args.id || `${args.name}-id`, state: args.inputs };
        },
        call: () => ({}),
      },
      "project",
      "stack",
      false,
    );
  });
  // Loaded after setMocks, as Pulumi's testing guide does, so the resource sees the mocked runtime.
  const pkg = () => import("../src");
  const settled = <T>(output: pulumi.Output<T>) => new Promise<T>((resolve) => output.apply(resolve));

  it("registers the package's type, with its logical name for auto-naming and no name of its own", async () => {
    const { EventRoute } = await pkg();
    const route = new EventRoute("hot-machines", {
      twinsInstanceId: INSTANCE,
      endpointName: "hot",
      filter: FILTER,
    });
    expect(await settled(route.filter)).toBe(FILTER);
    expect(registered.get("hot-machines")).toMatchObject({
      type: "pulumi-nodejs:dynamic/twin-resource-service:EventRoute",
      inputs: { logicalName: "hot-machines", endpointName: "hot", filter: FILTER },
    });
    expect(registered.get("hot-machines")?.inputs.name).toBeUndefined();
  });

  it("get reads by the full resource path; the import option reaches the provider as importId", async () => {
    const { EventRoute } = await pkg();
    const id = `${INSTANCE}/eventRoutes/legacy`;
    expect(await settled(EventRoute.get("existing-route", id).id)).toBe(id);
    expect(registered.get("existing-route")?.id).toBe(id);
    const imported = new EventRoute(
      "imported-route",
      { twinsInstanceId: INSTANCE, name: "legacy", endpointName: "hot", filter: FILTER },
      { import: id },
    );
    await settled(imported.id);
    expect(registered.get("imported-route")?.inputs.importId).toBe(id);
    expect(registered.get("imported-route")?.id).toBeFalsy();
  });
});
