import type { OpenIdIssuer } from "../../dev/stand-ins/openid-issuer";
import { principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { expectArmError } from "../support/arm";
import { ADMIN, adminEntraSettings, asPrincipal, assignRole } from "../support/entra-host";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer } from "../support/test-issuer";

// CONTRACT §6 and §7 together: writing a route needs the route's write action where the route is,
// and (ARM's linked access check) the read action on the endpoint the route names. Without the
// second, a caller allowed one route could change what any endpoint of the instance gets, and
// learn from a 400 which endpoints exist.
const INSTANCE =
  "/subscriptions/5d1c7a52-0000-4000-8000-00000000e7e7/resourceGroups/Routes/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
const OTHER = INSTANCE.replace("/plant", "/other");
const connection = (key: string) =>
  `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=twin-events`;
const ENDPOINT_BODY = JSON.stringify({
  queuePrimaryConnectionString: connection("cHJpbWFyeQ=="),
  queueSecondaryConnectionString: connection("c2Vjb25kYXJ5"),
});
const READ_ENDPOINT = "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read";
const WRITE_ROUTE = "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/write";
const DELETE_ROUTE = "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/delete";
// Issue 40's attack: route `mute` silences endpoint `epx` (filter false, as the docs say to); a
// caller with Contributor on `mute` and read on another endpoint only must not move or delete it,
// which would leave `epx` named by no route, and so receiving every event of the instance.
const MUTED = INSTANCE.replace("/plant", "/muted");
const EPX = `${MUTED}/endpoints/epx`;

let issuer: OpenIdIssuer;
let host: TestHost;
const as = (name: string) => asPrincipal(host, issuer, { name });
const route = (instance: string, name: string) => `${instance}/eventRoutes/${name}`;
const body = (endpointName: string) => JSON.stringify({ endpointName, filter: "true" });

beforeAll(async () => {
  issuer = await startTestIssuer();
  host = await startTestHost(adminEntraSettings(issuer));
  for (const instance of [INSTANCE, OTHER])
    for (const name of ["orders", "alarms"])
      expect(
        (await as(ADMIN)(`${instance}/endpoints/${name}`, { method: "PUT", body: ENDPOINT_BODY })).status,
      ).toBe(201);
  // "router" may write one route, and read one endpoint; "operator" is Contributor on the instance.
  await assignRole(host, issuer, route(INSTANCE, "r-one"), "router", "Contributor");
  await assignRole(host, issuer, `${INSTANCE}/endpoints/orders`, "router", "Reader");
  await assignRole(host, issuer, INSTANCE, "operator", "Contributor");
  for (const name of ["epx", "open", "shared"])
    expect(
      (await as(ADMIN)(`${MUTED}/endpoints/${name}`, { method: "PUT", body: ENDPOINT_BODY })).status,
    ).toBe(201);
  // "mover" may write and delete `mute`, and read `open` alone; "trusted" may read `epx` too.
  await assignRole(host, issuer, route(MUTED, "mute"), "mover", "Contributor");
  await assignRole(host, issuer, `${MUTED}/endpoints/open`, "mover", "Reader");
  await assignRole(host, issuer, route(MUTED, "mute"), "trusted", "Contributor");
  for (const name of ["open", "epx"])
    await assignRole(host, issuer, `${MUTED}/endpoints/${name}`, "trusted", "Reader");
});
afterAll(async () => {
  await host.stop();
  await issuer.close();
});

async function forbidden(response: Response, who: string, action: string, scope: string) {
  const error = await expectArmError(response, 403, "AuthorizationFailed");
  const oid = principalObjectId(who);
  expect(error.message).toBe(
    `The client '${oid}' with object id '${oid}' does not have authorization to perform action '${action}' over scope '${scope}' or the scope is invalid.`,
  );
}

it("writes the route it may, to the endpoint it may read", async () => {
  expect((await as("router")(route(INSTANCE, "r-one"), { method: "PUT", body: body("orders") })).status).toBe(
    201,
  );
  expect((await as("router")(route(INSTANCE, "r-one"))).status).toBe(200);
});

it("may not point that route at an endpoint it cannot read, whether or not it exists (no 400 to tell)", async () => {
  for (const endpointName of ["alarms", "never-made", "ALARMS"]) {
    await forbidden(
      await as("router")(route(INSTANCE, "r-one"), { method: "PUT", body: body(endpointName) }),
      "router",
      READ_ENDPOINT,
      `${INSTANCE}/endpoints/${endpointName}`,
    );
  }
  expect(
    ((await (await as(ADMIN)(route(INSTANCE, "r-one"))).json()) as { endpointName: string }).endpointName,
  ).toBe("orders");
});

it("may write no other route, nor a route of the same name in another instance", async () => {
  for (const path of [route(INSTANCE, "r-two"), route(OTHER, "r-one")]) {
    await forbidden(
      await as("router")(path, { method: "PUT", body: body("orders") }),
      "router",
      WRITE_ROUTE,
      path,
    );
  }
});

it("lets a Contributor on the instance route to any of its endpoints, and a Reader write none", async () => {
  expect(
    (await as("operator")(route(INSTANCE, "by-operator"), { method: "PUT", body: body("alarms") })).status,
  ).toBe(201);
  // The instance's endpoints are not another instance's: the linked check is on the typed id.
  await forbidden(
    await as("operator")(route(OTHER, "by-operator"), { method: "PUT", body: body("alarms") }),
    "operator",
    WRITE_ROUTE,
    route(OTHER, "by-operator"),
  );
  await assignRole(host, issuer, INSTANCE, "watcher", "Reader");
  await forbidden(
    await as("watcher")(route(INSTANCE, "by-watcher"), { method: "PUT", body: body("orders") }),
    "watcher",
    WRITE_ROUTE,
    route(INSTANCE, "by-watcher"),
  );
  expect((await as("watcher")(`${INSTANCE}/eventRoutes`)).status).toBe(200);
});

/** `mute` as stored, read by ADMIN: its endpoint, filter and ETag (undefined when there is none). */
async function storedMute() {
  const response = await as(ADMIN)(route(MUTED, "mute"));
  if (response.status === 404) return undefined;
  expect(response.status).toBe(200);
  const { endpointName, filter } = (await response.json()) as { endpointName: string; filter: string };
  return { endpointName, filter, etag: response.headers.get("etag") };
}

async function muteEpx() {
  const response = await as(ADMIN)(route(MUTED, "mute"), {
    method: "PUT",
    body: JSON.stringify({ endpointName: "epx", filter: "false" }),
  });
  expect([200, 201]).toContain(response.status);
  return storedMute();
}

describe("the endpoint a route named before (issue 40)", () => {
  it("refuses to move `mute` away from an endpoint the caller cannot read, and writes nothing", async () => {
    const before = await muteEpx();
    for (const move of [body("open"), JSON.stringify({ endpointName: "OPEN", filter: "false" })]) {
      await forbidden(
        await as("mover")(route(MUTED, "mute"), { method: "PUT", body: move }),
        "mover",
        READ_ENDPOINT,
        EPX,
      );
    }
    // Conditional on the version it read, or create-only: refused the same way, or 412.
    await forbidden(
      await as("mover")(route(MUTED, "mute"), {
        method: "PUT",
        body: body("open"),
        headers: { "If-Match": before?.etag ?? "" },
      }),
      "mover",
      READ_ENDPOINT,
      EPX,
    );
    const createOnly = await as("mover")(route(MUTED, "mute"), {
      method: "PUT",
      body: body("open"),
      headers: { "If-None-Match": "*" },
    });
    await expectArmError(createOnly, 412, "PreconditionFailed");
    expect(await storedMute()).toEqual(before);
  });

  it("refuses to delete `mute`, unconditionally or on its ETag, and deletes nothing", async () => {
    const before = await muteEpx();
    const unconditional: Record<string, string> = {};
    for (const headers of [unconditional, { "If-Match": before?.etag ?? "" }]) {
      await forbidden(
        await as("mover")(route(MUTED, "mute"), { method: "DELETE", headers }),
        "mover",
        READ_ENDPOINT,
        EPX,
      );
    }
    expect(await storedMute()).toEqual(before);
  });

  it("lets a caller who may read both endpoints move `mute` and back, and delete it", async () => {
    await muteEpx();
    const moved = await as("trusted")(route(MUTED, "mute"), { method: "PUT", body: body("open") });
    expect(moved.status).toBe(200);
    expect(await storedMute()).toMatchObject({ endpointName: "open", filter: "true" });
    // From `open`, which "mover" may read, "mover" may move it on, or delete it.
    const back = await as("mover")(route(MUTED, "mute"), {
      method: "PUT",
      body: JSON.stringify({ endpointName: "open", filter: "false" }),
    });
    expect(back.status).toBe(200);
    expect((await as("mover")(route(MUTED, "mute"), { method: "DELETE" })).status).toBe(200);
    expect(await storedMute()).toBeUndefined();
    // A route that is not there is as before: 204, and 412 on If-Match; a create names no old endpoint.
    expect((await as("mover")(route(MUTED, "mute"), { method: "DELETE" })).status).toBe(204);
    await expectArmError(
      await as("mover")(route(MUTED, "mute"), { method: "DELETE", headers: { "If-Match": "*" } }),
      412,
      "PreconditionFailed",
    );
    expect((await as("mover")(route(MUTED, "mute"), { method: "PUT", body: body("open") })).status).toBe(201);
    await muteEpx();
    expect((await as("trusted")(route(MUTED, "mute"), { method: "DELETE" })).status).toBe(200);
    await muteEpx();
  });

  it("still judges the route's own action first, and the endpoint the body names", async () => {
    await muteEpx();
    // Read on `epx` alone is no right to delete a route.
    await assignRole(host, issuer, EPX, "reader-of-epx", "Reader");
    await forbidden(
      await as("reader-of-epx")(route(MUTED, "mute"), { method: "DELETE" }),
      "reader-of-epx",
      DELETE_ROUTE,
      route(MUTED, "mute"),
    );
    // "trusted" may read where `mute` is, but not `shared`, where it would go.
    await forbidden(
      await as("trusted")(route(MUTED, "mute"), { method: "PUT", body: body("shared") }),
      "trusted",
      READ_ENDPOINT,
      `${MUTED}/endpoints/shared`,
    );
    expect(await storedMute()).toMatchObject({ endpointName: "epx", filter: "false" });
  });
});

describe("the 409 of an endpoint's delete names only the routes the caller may read", () => {
  const SHARED = `${MUTED}/endpoints/shared`;
  beforeAll(async () => {
    for (const name of ["seen", "hidden-a", "hidden-b"])
      expect((await as(ADMIN)(route(MUTED, name), { method: "PUT", body: body("shared") })).status).toBe(201);
    // Both may delete `shared`; "cleaner" may read the route `seen` too, "blind" no route.
    for (const who of ["cleaner", "blind"]) await assignRole(host, issuer, SHARED, who, "Contributor");
    await assignRole(host, issuer, route(MUTED, "seen"), "cleaner", "Reader");
  });

  it("names the readable ones and counts the others, without their names", async () => {
    const error = await expectArmError(
      await as("cleaner")(SHARED, { method: "DELETE" }),
      409,
      "EndpointInUse",
    );
    expect(error.message).toBe(
      "The endpoint 'shared' is named by the event route 'seen' and 2 other routes; delete them, or point them at another endpoint, first.",
    );
    expect(JSON.stringify(error)).not.toContain("hidden");
  });

  it("gives a caller who may read no route the count alone", async () => {
    const error = await expectArmError(await as("blind")(SHARED, { method: "DELETE" }), 409, "EndpointInUse");
    expect(error.message).toBe(
      "The endpoint 'shared' is named by 3 event routes; delete them, or point them at another endpoint, first.",
    );
    expect(JSON.stringify(error)).not.toMatch(/seen|hidden/);
  });

  it("names them all to a caller who may read them all", async () => {
    const error = await expectArmError(await as(ADMIN)(SHARED, { method: "DELETE" }), 409, "EndpointInUse");
    expect(error.message).toContain("the event routes 'hidden-a', 'hidden-b', 'seen';");
    expect((await as(ADMIN)(SHARED)).status).toBe(200);
  });
});

it("says so in the API description this instance serves", async () => {
  const document = (await (await host.request("/openapi.json", { key: null })).json()) as {
    paths: Record<string, Record<string, { description?: string }>>;
  };
  const paths = Object.keys(document.paths);
  const item = document.paths[paths.find((each) => each.endsWith("/eventRoutes/{eventRouteName}")) ?? ""];
  expect(item?.put?.description).toContain(
    `\`${WRITE_ROUTE}\` at the resource it acts on or above (for a role assignment, its scope) and \`${READ_ENDPOINT}\` at the resource the body names and at the endpoint the route named before, when the write moves it (403 naming its id).`,
  );
  expect(item?.delete?.description).toContain(
    `\`${DELETE_ROUTE}\` at the resource it acts on or above (for a role assignment, its scope) and \`${READ_ENDPOINT}\` at the endpoint the route names (403 naming its id).`,
  );
  const endpoint = document.paths[paths.find((each) => each.endsWith("/endpoints/{endpointName}")) ?? ""];
  expect(endpoint?.delete?.description).toContain("naming those the caller may read and counting the others");
});
