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

it("says so in the API description this instance serves", async () => {
  const document = (await (await host.request("/openapi.json", { key: null })).json()) as {
    paths: Record<string, Record<string, { description?: string }>>;
  };
  const path = Object.keys(document.paths).find((each) => each.endsWith("/eventRoutes/{eventRouteName}"));
  expect(document.paths[path ?? ""]?.put?.description).toContain(
    `\`${WRITE_ROUTE}\` at the resource it acts on or above (for a role assignment, its scope) and \`${READ_ENDPOINT}\` at the resource the body names`,
  );
});
