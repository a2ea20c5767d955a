import { QueueClient } from "@azure/storage-queue";
import { eventIdOfBlobName } from "../../src/delivery/dead-letter-name";
import { encodeQueueMessage } from "../../src/events/queue-message";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  deadLetterUrl,
  ingest,
  listBlobs,
  poisonRecords,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";
import { startTestHost, type TestHost } from "../support/test-host";

// Dead letters and what delivery logs about them (docs/api.md), over the wire: events for an
// endpoint whose broker port is closed are retried, then written to a container in Azurite.
let host: TestHost;
// Three attempts a second apart, then the writes: allow for a slow, shared machine.
jest.setTimeout(120_000);

beforeAll(async () => {
  host = await startTestHost(
    {
      DELIVERY_MAX_ATTEMPTS: "3",
      DELIVERY_BACKOFF_BASE_SECONDS: "1",
      DELIVERY_BACKOFF_CAP_SECONDS: "1",
      DELIVERY_SEND_TIMEOUT_MS: "3000",
      ENDPOINT_CACHE_SECONDS: "0",
      // The stand-ins listen on loopback.
      ALLOW_LOOPBACK_ENDPOINTS: "true",
    },
    undefined,
    { queueTriggers: {} },
  );
});

afterAll(async () => {
  await host.stop();
});

/** An endpoint whose broker cannot be reached, so every event it gets ends dead-lettered (or poisoned). */
async function doomedEndpoint(instance: string, name: string, deadLetter?: string): Promise<void> {
  const port = await closedPort();
  await createEndpoint(host, instance, name, {
    primary: unreachableConnectionString(port, "nowhere"),
    secondary: unreachableConnectionString(port, "nowhere"),
    ...(deadLetter !== undefined && { deadLetter }),
  });
}

type Blob = Awaited<ReturnType<typeof listBlobs>>[number];

/** Events counted dead-lettered by the invocations logged from `fromLog` on. */
function deadLetteredSince(fromLog: number): number {
  return host.logs
    .slice(fromLog)
    .map((entry) => /^twin events: .*deadLettered=(\d+)/.exec(entry.message)?.[1])
    .reduce((sum, count) => sum + Number(count ?? 0), 0);
}

/** Waits until delivery counted `count` events dead-lettered since `fromLog`, then lists the container. */
async function deadLetters(sasUrl: string, fromLog: number, count: number): Promise<Blob[]> {
  await waitUntil(() => deadLetteredSince(fromLog) >= count, 90_000, `${count} events dead-lettered`);
  return listBlobs(sasUrl);
}

function byIdAndSource(a: { id: string; source: string }, b: { id: string; source: string }): number {
  return a.id === b.id ? a.source.localeCompare(b.source) : a.id.localeCompare(b.id);
}

function logLines(pattern: RegExp): string[] {
  return host.logs.map((entry) => entry.message).filter((message) => pattern.test(message));
}

it("keeps each of 5 events whose ids collided (col/1, col_1, col\\1, one id from two sources) in a blob of its own", async () => {
  const instance = twinsInstance("collisions");
  const sasUrl = await deadLetterUrl();
  await doomedEndpoint(instance, "doomed", sasUrl);
  const events = [
    cloudEvent("col/1"),
    cloudEvent("col_1"),
    cloudEvent("col\\1"),
    { ...cloudEvent("same-id", { from: "a" }), source: "/twins/a" },
    { ...cloudEvent("same-id", { from: "b" }), source: "/twins/b" },
  ];

  const fromLog = host.logs.length;
  await ingest(host, instance, events);
  const blobs = await deadLetters(sasUrl, fromLog, 5);

  expect(blobs).toHaveLength(5);
  expect(new Set(blobs.map((blob) => blob.name)).size).toBe(5);
  expect(blobs.map((blob) => blob.body as (typeof events)[number]).sort(byIdAndSource)).toEqual(
    // Ingest started a trace for each (events/trace-context.ts).
    [...events]
      .sort(byIdAndSource)
      .map((event) => ({ ...event, traceparent: expect.stringMatching(/^00-/) })),
  );
  for (const blob of blobs) {
    expect(blob.name).toMatch(/^doomed\/\d{4}\/\d{2}\/\d{2}\/\d{2}\/[^/]+\.json$/);
    expect(eventIdOfBlobName(blob.name)).toBe((blob.body as { id: string }).id);
    expect(blob.metadata).toMatchObject({
      deadletterreason: "MaxDeliveryAttemptsExceeded",
      deliveryattempts: "3",
    });
  }
  expect(blobs.filter((blob) => /\/same-id(\.1)?\.json$/.test(blob.name))).toHaveLength(2);
});

it("stores hostile and very long ids inside the endpoint's folder, and the same event dead-lettered again only once", async () => {
  const instance = twinsInstance("hostile-ids");
  const sasUrl = await deadLetterUrl();
  await doomedEndpoint(instance, "hostile", sasUrl);
  const events = ["..", ".", "%2F..%2F", "../../escape", "é/😀~", "x".repeat(3_000)].map((id) =>
    cloudEvent(id),
  );

  const fromLog = host.logs.length;
  // Ingest refuses an id over 128 characters; a producer can still put one on the queue directly.
  const veryLong = events[events.length - 1] as (typeof events)[number];
  await ingest(host, instance, events.slice(0, -1));
  const traced = { ...veryLong, traceparent: `00-${"ab".repeat(16)}-${"cd".repeat(8)}-01` };
  await new QueueClient(sharedStandIns().storageConnectionString, host.config.TWIN_EVENTS_QUEUE).sendMessage(
    encodeQueueMessage({ twinsInstanceId: instance, events: [traced] }),
  );
  const first = await deadLetters(sasUrl, fromLog, events.length);
  // The very same event again (a redelivery after a crash, say): its blob is there already. Very
  // same: with the traceparent ingest gave it (events/trace-context.ts).
  await ingest(host, instance, [first.find((blob) => (blob.body as { id: string }).id === "..")?.body]);
  const blobs = await deadLetters(sasUrl, fromLog, events.length + 1);

  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
  const distinct = new Map(blobs.map((blob) => [JSON.stringify(blob.body), blob.body as { id: string }]));
  expect([...distinct.values()].sort(byId)).toEqual(
    [...events].sort(byId).map((event) => ({ ...event, traceparent: expect.stringMatching(/^00-/) })),
  );
  // One copy per hour's folder (the repeat may fall into the next hour, and then has a folder of its own).
  const folders = blobs.map(
    (blob) => `${blob.name.slice(0, blob.name.lastIndexOf("/"))} ${JSON.stringify(blob.body)}`,
  );
  expect(new Set(folders).size).toBe(blobs.length);
  expect(blobs.length).toBeLessThanOrEqual(events.length + 1);
  for (const blob of blobs) {
    expect(blob.name.startsWith("hostile/")).toBe(true);
    expect(blob.name.split("/")).toHaveLength(6);
    expect(blob.name.length).toBeLessThanOrEqual(1024);
  }
});

it("logs each dead-lettered event with instance, endpoint, id, reason and blob, and each retry, without secrets", async () => {
  const instance = twinsInstance("logged");
  const sasUrl = await deadLetterUrl();
  await doomedEndpoint(instance, "logged-ep", sasUrl);
  const ids = ["log-1", "log/2"];

  const fromLog = host.logs.length;
  await ingest(
    host,
    instance,
    ids.map((id) => cloudEvent(id)),
  );
  const blobs = await deadLetters(sasUrl, fromLog, 2);

  const deadLettered = logLines(/endpoint="logged-ep".*dead-lettered|dead-lettered.*endpoint="logged-ep"/);
  expect(deadLettered).toHaveLength(2);
  for (const id of ids) {
    const line = deadLettered.find((candidate) => candidate.includes(`event=${JSON.stringify(id)}`));
    const blob = blobs.find((candidate) => (candidate.body as { id: string }).id === id);
    expect(line).toContain(`instance=${JSON.stringify(instance)}`);
    expect(line).toContain('reason="MaxDeliveryAttemptsExceeded"');
    expect(line).toContain(`blob=${JSON.stringify(blob?.name)}`);
  }
  const retries = logLines(/retry scheduled/).filter((line) => line.includes('endpoint="logged-ep"'));
  expect(retries.map((line) => /attempt=(\d+)/.exec(line)?.[1]).sort()).toEqual(["1", "2"]);
  for (const line of retries) {
    expect(line).toContain(`instance=${JSON.stringify(instance)}`);
    expect(line).toMatch(/ error="[A-Za-z]+"/);
    const nextRetryAt = /nextRetryAt="([^"]+)"/.exec(line)?.[1];
    expect(Number.isNaN(Date.parse(nextRetryAt ?? ""))).toBe(false);
  }
  expectNoSecretIn(
    host.logs.map((entry) => entry.message),
    sasUrl,
  );
});

it("logs each poisoned event with instance, endpoint, id, reason and the poison queue, without secrets", async () => {
  const instance = twinsInstance("logged-poison");
  await doomedEndpoint(instance, "no-dead-letter");

  await ingest(host, instance, [cloudEvent("poison-1")]);
  await waitUntil(
    async () => (await poisonRecords(host)).some((record) => record.endpointName === "no-dead-letter"),
    90_000,
    "the poison record",
  );

  const poisoned = logLines(/poisoned/).filter((line) => line.includes('endpoint="no-dead-letter"'));
  expect(poisoned).toHaveLength(1);
  expect(poisoned[0]).toContain(`instance=${JSON.stringify(instance)}`);
  expect(poisoned[0]).toContain('event="poison-1"');
  expect(poisoned[0]).toContain('reason="NoDeadLetterSecret"');
  expect(poisoned[0]).toContain(`queue="${host.config.TWIN_EVENTS_QUEUE}-poison"`);
  expectNoSecretIn(host.logs.map((entry) => entry.message));
});

/** The Service Bus key of the connection strings, and the signature of the dead-letter SAS URL. */
function expectNoSecretIn(lines: string[], sasUrl?: string): void {
  const secrets = ["SAS_KEY_VALUE"];
  const sig = sasUrl === undefined ? null : new URL(sasUrl).searchParams.get("sig");
  if (sig) secrets.push(sig, encodeURIComponent(sig));
  expect(lines.length).toBeGreaterThan(0);
  for (const secret of secrets) {
    expect(lines.filter((line) => line.includes(secret))).toEqual([]);
  }
}
