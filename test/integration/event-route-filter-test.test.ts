import { QueueClient } from "@azure/storage-queue";
import fc from "fast-check";
import type { OpenIdIssuer } from "../../dev/stand-ins/openid-issuer";
import { principalObjectId } from "../../dev/stand-ins/openid-issuer";
import { RESOURCE_API_VERSIONS } from "../../src/common/api-versions";
import { compileFilter } from "../../src/event-routes/filter";
import { type CloudEvent, cloudEventSchema } from "../../src/events/cloud-event";
import { expectArmError } from "../support/arm";
import { ADMIN, adminEntraSettings, asPrincipal, assignRole } from "../support/entra-host";
import { event as generatedEvent, printed } from "../support/filter-arbitraries";
import { sharedStandIns } from "../support/stand-ins-env";
import { startTestHost, type TestHost } from "../support/test-host";
import { startTestIssuer } from "../support/test-issuer";

// POST {twinsInstanceId}/testEventRouteFilter (docs/api.md, "Trying a filter"): the service's own
// parser and delivery's evaluation, nothing written, nothing sent.
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-00000000f17e/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/tried-1";
const API_VERSION = RESOURCE_API_VERSIONS[RESOURCE_API_VERSIONS.length - 1];
const TEST = (instance = INSTANCE) => `${instance}/testEventRouteFilter?api-version=${API_VERSION}`;
const READ_ROUTE = "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/read";
const EVENT = {
  id: "evt-1",
  source: "/factory/line-1",
  specversion: "1.0",
  type: "Twin.Create",
  data: { temperature: 21.5 },
};
const connection = (key: string) =>
  `Endpoint=sb://twins-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${key};EntityPath=twin-events`;

let host: TestHost;
let queue: QueueClient;
beforeAll(async () => {
  host = await startTestHost();
  queue = new QueueClient(sharedStandIns().storageConnectionString, host.config.TWIN_EVENTS_QUEUE);
  await queue.createIfNotExists();
});
afterAll(() => host.stop());

const tryFilter = (body: unknown, instance = INSTANCE) =>
  host.request(TEST(instance), { method: "POST", body: JSON.stringify(body) });

async function verdict(filter: string, event: unknown = EVENT) {
  const response = await tryFilter({ filter, event });
  expect(response.status).toBe(200);
  return response.json();
}

describe("the verdict", () => {
  it("answers matches true when the filter lets the event through", async () => {
    expect(await verdict("type = 'Twin.Create' AND $body.temperature > 20")).toEqual({ matches: true });
  });

  it("answers matches false with the comparison that failed, in words", async () => {
    expect(await verdict("type = 'Twin.Update'")).toEqual({
      matches: false,
      reason: "type = 'Twin.Update' was false: the event's type is 'Twin.Create'",
    });
    expect(await verdict("type = 'Twin.Create' AND $body.temperature > 30")).toEqual({
      matches: false,
      reason: "$body.temperature > 30 was false: the event's $body.temperature is 21.5",
    });
  });

  it("agrees with delivery's evaluation on generated filters and events", async () => {
    const seen = { true: 0, false: 0 };
    await fc.assert(
      fc.asyncProperty(printed, generatedEvent, async ({ text }, generated) => {
        const on = asIngestTakes(generated);
        // A lone surrogate is no JSON a request can carry (RFC 7493): the body is refused first.
        fc.pre(!/\p{Cs}/u.test(text) && !/\\ud[89a-f]/i.test(JSON.stringify(on)));
        const answer = (await verdict(text, on)) as { matches: boolean; reason?: string };
        expect({ text, on, matches: answer.matches }).toEqual({ text, on, matches: compileFilter(text)(on) });
        expect(answer.reason === undefined).toBe(answer.matches);
        seen[`${answer.matches}`]++;
      }),
      { numRuns: 300 },
    );
    expect(Math.min(seen.true, seen.false)).toBeGreaterThan(30);
  });
});

/**
 * A generated event as ingest would take it: the attributes it requires where the generator left
 * them out, and those it would refuse (empty, a time that is not one) left out, so still missing.
 */
function asIngestTakes(generated: CloudEvent): CloudEvent {
  const event: Record<string, unknown> = { ...generated, specversion: "1.0" };
  for (const [name, value] of Object.entries(event)) if (value === "" && name !== "data") delete event[name];
  if (event.time !== undefined && !cloudEventSchema.shape.time.safeParse(event.time).success)
    delete event.time;
  for (const name of ["id", "source", "type"]) event[name] ??= name;
  expect(cloudEventSchema.safeParse(event).success).toBe(true);
  return event as CloudEvent;
}

describe("refusals", () => {
  it("refuses a filter the parser refuses with the very message a route PUT gets", async () => {
    const endpoint = `${INSTANCE}/endpoints/hot`;
    const endpointBody = {
      queuePrimaryConnectionString: connection("a2V5"),
      queueSecondaryConnectionString: connection("a2V5Mg=="),
    };
    expect((await host.request(endpoint, { method: "PUT", body: JSON.stringify(endpointBody) })).status).toBe(
      201,
    );
    for (const filter of [
      "type = ",
      "type = 'a' AND",
      `${"(".repeat(40)}true${")".repeat(40)}`,
      "x".repeat(2100),
    ]) {
      const tried = await expectArmError(
        await tryFilter({ filter, event: EVENT }),
        400,
        "InvalidRequestContent",
        "filter",
      );
      const put = await expectArmError(
        await host.request(`${INSTANCE}/eventRoutes/bad`, {
          method: "PUT",
          body: JSON.stringify({ endpointName: "hot", filter }),
        }),
        400,
        "InvalidRequestContent",
        "filter",
      );
      expect(tried.message).toBe(put.message);
      expect(tried.details).toEqual(put.details);
    }
    expect((await host.request(endpoint, { method: "DELETE" })).status).toBe(200);
  });

  it.each([
    ["a wrong specversion", { ...EVENT, specversion: "0.3" }, "event.specversion"],
    ["no id", { ...EVENT, id: undefined }, "event.id"],
    ["both data and data_base64", { ...EVENT, data_base64: "AA==" }, "event"],
    ["an id over 128 characters", { ...EVENT, id: "i".repeat(129) }, "event.id"],
    ["an array", [EVENT], "event"],
  ])("refuses an event with %s (400, target %s)", async (_what, event, target) => {
    await expectArmError(await tryFilter({ filter: "true", event }), 400, "InvalidRequestContent", target);
  });

  it.each([
    ["no event", { filter: "true" }, "event"],
    ["no filter", { event: EVENT }, "filter"],
    ["another field", { filter: "true", event: EVENT, route: "r" }, "route"],
  ])("refuses a body with %s (400, target %s)", async (_what, body, target) => {
    await expectArmError(await tryFilter(body), 400, "InvalidRequestContent", target);
  });

  it("refuses a body that is not a JSON object, and another api-version", async () => {
    for (const body of ["null", "[]", '"true"', "{"])
      expect((await host.request(TEST(), { method: "POST", body })).status).toBe(400);
    const response = await host.request(`${INSTANCE}/testEventRouteFilter?api-version=2020-01-01`, {
      method: "POST",
      body: JSON.stringify({ filter: "true", event: EVENT }),
    });
    expect(response.status).toBe(400);
  });
});

describe("nothing written, nothing sent", () => {
  it("leaves the routes' list empty and the instance's queue empty", async () => {
    const instance = INSTANCE.replace("tried-1", "tried-2");
    for (const filter of ["true", "false", "type = 'Twin.Create'"])
      expect((await tryFilter({ filter, event: EVENT }, instance)).status).toBe(200);
    const list = await host.request(`${instance}/eventRoutes?api-version=${API_VERSION}`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ value: [] });
    const { peekedMessageItems } = await queue.peekMessages({ numberOfMessages: 32 });
    expect(peekedMessageItems).toEqual([]);
  });

  it("is not a route name: an event route called testEventRouteFilter is a route like any other", async () => {
    const response = await host.request(
      `${INSTANCE}/eventRoutes/testEventRouteFilter?api-version=${API_VERSION}`,
    );
    await expectArmError(response, 404, "ResourceNotFound");
  });
});

describe("who may (AUTH_MODE=entra)", () => {
  const ENTRA_INSTANCE =
    "/subscriptions/5d1c7a52-0000-4000-8000-00000000f17e/resourceGroups/Tries/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
  let issuer: OpenIdIssuer;
  let entra: TestHost;
  const as = (name: string) => (instance: string) =>
    asPrincipal(entra, issuer, { name })(TEST(instance), {
      method: "POST",
      body: JSON.stringify({ filter: "type = 'Twin.Update'", event: EVENT }),
    });

  beforeAll(async () => {
    issuer = await startTestIssuer();
    entra = await startTestHost(adminEntraSettings(issuer));
    await assignRole(entra, issuer, ENTRA_INSTANCE, "route-reader", "Reader");
    // Allowed one route only: not the instance's routes.
    await assignRole(entra, issuer, `${ENTRA_INSTANCE}/eventRoutes/one`, "one-route", "Reader");
    // Allowed the instance's events, not its routes.
    await assignRole(entra, issuer, ENTRA_INSTANCE, "sender", "Twin Events Sender");
  });
  afterAll(async () => {
    await entra.stop();
    await issuer.close();
  });

  it("lets a reader of the instance's routes try a filter, as it may GET them", async () => {
    for (const who of ["route-reader", ADMIN]) {
      const response = await as(who)(ENTRA_INSTANCE);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ matches: false });
    }
  });

  it("refuses with 403 a caller a route GET refuses, naming the action", async () => {
    const other = ENTRA_INSTANCE.replace("/plant", "/other");
    for (const [who, instance] of [
      ["route-reader", other],
      ["one-route", ENTRA_INSTANCE],
      ["sender", ENTRA_INSTANCE],
      ["nobody", ENTRA_INSTANCE],
    ] as const) {
      const get = await asPrincipal(entra, issuer, { name: who })(
        `${instance}/eventRoutes?api-version=${API_VERSION}`,
      );
      if (who !== "one-route") expect(get.status).toBe(403);
      const error = await expectArmError(await as(who)(instance), 403, "AuthorizationFailed");
      const oid = principalObjectId(who);
      expect(error.message).toBe(
        `The client '${oid}' with object id '${oid}' does not have authorization to perform action '${READ_ROUTE}' over scope '${instance}/testEventRouteFilter' or the scope is invalid.`,
      );
    }
  });

  it("answers 401 without a token", async () => {
    const response = await entra.request(TEST(ENTRA_INSTANCE), {
      method: "POST",
      body: JSON.stringify({ filter: "true", event: EVENT }),
      key: null,
    });
    expect(response.status).toBe(401);
  });
});
