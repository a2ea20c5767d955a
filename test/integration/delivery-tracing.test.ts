import type { RunningServiceBus } from "../../dev/stand-ins/service-bus";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  deadLetterUrl,
  listBlobs,
  poisonRecords,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import type { TestHost } from "../support/test-host";

// Trace context end to end (docs/api.md): a traceparent sent at ingest is on the Service Bus
// message and in every log line of the event's path.
let serviceBus: RunningServiceBus;
let host: TestHost;
jest.setTimeout(120_000);

const OWN = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const HEADER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

let stack: DeliveryStack;
beforeAll(async () => {
  stack = await DeliveryStack.start({ DELIVERY_MAX_ATTEMPTS: "2" });
  ({ serviceBus, host } = stack);
});

afterAll(() => stack.stop());

async function post(
  instance: string,
  events: unknown[],
  headers: Record<string, string> = {},
): Promise<void> {
  const response = await host.request(`${instance}/events`, {
    method: "POST",
    body: JSON.stringify(events),
    headers: { "content-type": "application/cloudevents-batch+json", ...headers },
  });
  expect(response.status).toBe(202);
}

const logLines = (traceId: string) =>
  host.logs.map((entry) => entry.message).filter((message) => message.includes(traceId));

it("carries the event's traceparent, else the request's, to Diagnostic-Id and traceparent, and logs its trace id", async () => {
  const instance = twinsInstance("traced");
  const subscriber = stack.subscribe("traced-topic");
  const connection = serviceBus.connectionString("traced-topic");
  await createEndpoint(host, instance, "traced", { primary: connection, secondary: connection });
  const own = { ...cloudEvent("own", { n: 1 }), traceparent: OWN, tracestate: "own=1" };
  const invalid = {
    ...cloudEvent("invalid", { n: 3 }),
    traceparent: `00-${"0".repeat(32)}-b7ad6b7169203331-01`,
  };
  await post(instance, [own, cloudEvent("none", { n: 2 }), invalid], {
    traceparent: HEADER,
    tracestate: "hdr=1",
  });
  await waitUntil(() => subscriber.received.length === 3, 30_000, "three events");

  const byId = new Map(subscriber.received.map((message) => [String(message.messageId), message]));
  expect(byId.get("own")?.applicationProperties).toMatchObject({
    "cloudEvents:id": "own",
    "Diagnostic-Id": OWN,
    traceparent: OWN,
    tracestate: "own=1",
  });
  expect(byId.get("own")?.body).toEqual({ n: 1 });
  for (const id of ["none", "invalid"]) {
    expect(byId.get(id)?.applicationProperties).toMatchObject({
      "cloudEvents:id": id,
      "Diagnostic-Id": HEADER,
      traceparent: HEADER,
      tracestate: "hdr=1",
    });
  }
  for (const traceId of ["0af7651916cd43dd8448eb211c80319c", "4bf92f3577b34da6a3ce929d0e0e4736"]) {
    await waitUntil(() => logLines(traceId).length >= 2, 10_000, "the log lines");
    expect(logLines(traceId).some((line) => line.startsWith("twin events accepted:"))).toBe(true);
    expect(logLines(traceId).some((line) => line.startsWith("twin events delivered:"))).toBe(true);
  }
});

it("starts a trace at ingest when none is given", async () => {
  const instance = twinsInstance("untraced");
  const subscriber = stack.subscribe("untraced-topic");
  const connection = serviceBus.connectionString("untraced-topic");
  await createEndpoint(host, instance, "untraced", { primary: connection, secondary: connection });
  await post(instance, [cloudEvent("fresh")]);
  await waitUntil(() => subscriber.received.length === 1, 30_000, "the event");
  const properties = subscriber.received[0]?.applicationProperties ?? {};
  const traceId = TRACEPARENT.exec(String(properties.traceparent))?.[1] as string;
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(properties["Diagnostic-Id"]).toBe(properties.traceparent);
  expect(properties).not.toHaveProperty("tracestate");
  await waitUntil(() => logLines(traceId).length >= 2, 10_000, "the log lines");
});

it("names the trace id in the retry, dead-letter and poison lines, and keeps traceparent in the dead letter", async () => {
  const instance = twinsInstance("traced-doomed");
  const sasUrl = await deadLetterUrl();
  const port = await closedPort();
  const nowhere = unreachableConnectionString(port, "nowhere");
  await createEndpoint(host, instance, "dead", { primary: nowhere, secondary: nowhere, deadLetter: sasUrl });
  await createEndpoint(host, instance, "lost", { primary: nowhere, secondary: nowhere });
  const event = { ...cloudEvent("doomed", { n: 4 }), traceparent: OWN.replace("0af7", "1af7") };
  const traceId = "1af7651916cd43dd8448eb211c80319c";
  await post(instance, [event]);
  await waitUntil(
    async () =>
      (await listBlobs(sasUrl)).length > 0 &&
      (await poisonRecords(host)).some((record) => record.endpointName === "lost"),
    90_000,
    "the dead letter and the poison record",
  );
  const [blob] = await listBlobs(sasUrl);
  expect(blob?.body).toEqual(event);
  const lines = logLines(traceId);
  expect(lines.filter((line) => line.startsWith("twin events accepted:"))).toHaveLength(1);
  expect(
    lines.filter((line) => line.startsWith("twin events delivery failed, retry scheduled:")),
  ).toHaveLength(2);
  expect(lines.filter((line) => line.startsWith("twin event dead-lettered:"))).toEqual([
    expect.stringContaining('endpoint="dead"'),
  ]);
  expect(lines.filter((line) => line.startsWith("twin event poisoned:"))).toEqual([
    expect.stringContaining('endpoint="lost"'),
  ]);
});
