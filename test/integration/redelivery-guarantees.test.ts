import { randomBytes } from "node:crypto";
import { BlobServiceClient } from "@azure/storage-blob";
import { REDELIVERED_METADATA } from "../../src/delivery/dead-letter-claims";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  deadLetteredSince,
  deadLetterUrl,
  ingest,
  listBlobs,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";
import type { TestHost } from "../support/test-host";

// The guarantees of POST …/redeliverDeadLetters over the wire, on two hosts that share one
// database and one event queue, each with an endpoint cache that would hold settings for an hour:
// a redelivery goes out with the endpoint's settings of the moment, requeues only the dead letters
// the service wrote for that endpoint of that instance, each once however many calls race, and a
// redelivered event that fails again is found again by a plain call.
jest.setTimeout(240_000);

let stack: DeliveryStack;
let hosts: TestHost[];
beforeAll(async () => {
  stack = await DeliveryStack.start({ DELIVERY_MAX_ATTEMPTS: "2", ENDPOINT_CACHE_SECONDS: "3600" }, 2);
  hosts = stack.hosts;
});
afterAll(() => stack.stop());

type Counts = { requeued: number; skipped: number; failed: number };

async function redeliver(
  host: TestHost,
  instance: string,
  name: string,
  body: unknown = {},
): Promise<Counts> {
  const response = await host.request(
    `${instance}/endpoints/${name}/redeliverDeadLetters?api-version=2026-11-01`,
    {
      method: "POST",
      body: JSON.stringify(body),
    },
  );
  expect(response.status).toBe(200);
  return (await response.json()) as Counts;
}

/** Waits until the two hosts together dead-lettered `count` more events than at `marks`. */
async function deadLettered(marks: number[], count: number, what: string): Promise<void> {
  await waitUntil(() => deadLetteredSince(hosts, marks) >= count, 120_000, what);
}

async function patchConnection(host: TestHost, instance: string, name: string, connection: string) {
  const patched = await host.request(`${instance}/endpoints/${name}`, {
    method: "PATCH",
    body: JSON.stringify({
      queuePrimaryConnectionString: connection,
      queueSecondaryConnectionString: connection,
    }),
  });
  expect(patched.status).toBe(200);
}

function sum(all: Counts[], key: keyof Counts): number {
  return all.reduce((total, counts) => total + counts[key], 0);
}

it("finds a re-failed redelivery with a plain call, then sends 30 dead letters once each, with the settings of the moment, while four calls race on two hosts", async () => {
  const instance = twinsInstance("races");
  const sasUrl = await deadLetterUrl();
  const port = await closedPort();
  const broken = unreachableConnectionString(port, "races-topic");
  await createEndpoint(hosts[0] as TestHost, instance, "flaky", {
    primary: broken,
    secondary: broken,
    deadLetter: sasUrl,
  });
  const ids = Array.from({ length: 30 }, (_, index) => `race-${index}`);
  let marks = stack.logMarks();
  await ingest(
    hosts[1] as TestHost,
    instance,
    ids.map((id) => cloudEvent(id)),
  );
  await deadLettered(marks, 30, "30 events dead-lettered");

  // Redelivered into the endpoint that is still broken: dead-lettered again, and a plain call finds them.
  marks = stack.logMarks();
  expect(await redeliver(hosts[0] as TestHost, instance, "flaky")).toEqual({
    requeued: 30,
    skipped: 0,
    failed: 0,
  });
  await deadLettered(marks, 30, "30 redelivered events dead-lettered again");
  const refailed = await listBlobs(sasUrl);
  expect(refailed.filter((blob) => blob.metadata[REDELIVERED_METADATA] !== undefined)).toEqual([]);
  marks = stack.logMarks();
  expect(await redeliver(hosts[1] as TestHost, instance, "flaky")).toEqual({
    requeued: 30,
    skipped: 0,
    failed: 0,
  });
  await deadLettered(marks, 30, "30 events dead-lettered a third time");

  // Fixed, and redelivered at once by four calls, two on each host, whose caches still hold the
  // broken settings (ENDPOINT_CACHE_SECONDS=3600).
  const subscriber = stack.subscribe("races-topic");
  await patchConnection(
    hosts[0] as TestHost,
    instance,
    "flaky",
    stack.serviceBus.connectionString("races-topic"),
  );
  const answers = await Promise.all(
    [0, 1, 0, 1].map((index) => redeliver(hosts[index] as TestHost, instance, "flaky")),
  );
  expect(sum(answers, "requeued")).toBe(30);
  expect(sum(answers, "failed")).toBe(0);
  for (const answer of answers) expect(answer.requeued + answer.skipped).toBe(30);
  await waitUntil(() => subscriber.received.length >= 30, 60_000, "30 redelivered events");
  // Any duplicate would be on its way by now.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(subscriber.ids().sort()).toEqual([...ids].sort());
  expect(await redeliver(hosts[1] as TestHost, instance, "flaky")).toEqual({
    requeued: 0,
    skipped: 30,
    failed: 0,
  });
});

it("redelivers only its own instance's dead letters from a container shared with another instance, and names each blob it skips", async () => {
  const sasUrl = await deadLetterUrl();
  const port = await closedPort();
  const broken = unreachableConnectionString(port, "shared-topic");
  const [mine, theirs] = [twinsInstance("shared-a"), twinsInstance("shared-b")];
  for (const instance of [mine, theirs]) {
    await createEndpoint(hosts[0] as TestHost, instance, "same-name", {
      primary: broken,
      secondary: broken,
      deadLetter: sasUrl,
    });
  }
  const marks = stack.logMarks();
  await ingest(
    hosts[0] as TestHost,
    mine,
    ["a-1", "a-2", "same-id"].map((id) => cloudEvent(id)),
  );
  await ingest(
    hosts[1] as TestHost,
    theirs,
    ["b-1", "b-2", "same-id"].map((id) => cloudEvent(id)),
  );
  await deadLettered(marks, 6, "6 events dead-lettered");
  const real = (await listBlobs(sasUrl)).filter((blob) => blob.metadata.endpointid?.includes("/shared-a/"));
  expect(real).toHaveLength(3);
  const planted = await plantBlobs(sasUrl, mine);

  const subscriber = stack.subscribe("shared-a-topic");
  await patchConnection(
    hosts[1] as TestHost,
    mine,
    "same-name",
    stack.serviceBus.connectionString("shared-a-topic"),
  );
  const logFrom = stack.logMarks();
  expect(await redeliver(hosts[1] as TestHost, mine, "same-name", { force: true })).toEqual({
    requeued: 3,
    skipped: 3 + planted.length,
    failed: 0,
  });

  await waitUntil(() => subscriber.received.length >= 3, 60_000, "3 redelivered events");
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(subscriber.ids().sort()).toEqual(["a-1", "a-2", "same-id"]);
  const skippedLines = hosts
    .flatMap((host, index) => host.logs.slice(logFrom[index]))
    .map((entry) => entry.message)
    .filter((line) => line.startsWith("dead-letter redelivery: blob skipped:"));
  const blobs = await listBlobs(sasUrl);
  const foreign = blobs.filter((blob) => !real.some((own) => own.name === blob.name));
  expect(foreign).toHaveLength(3 + planted.length);
  for (const blob of foreign) {
    expect(skippedLines.filter((line) => line.includes(`blob=${JSON.stringify(blob.name)}`))).toHaveLength(1);
    expect(blob.metadata[REDELIVERED_METADATA]).toBeUndefined();
  }
});

/**
 * Blobs the service did not write for `instance`'s endpoint, under its folder: an event with no
 * metadata, a copy of one of its dead letters (body and metadata) under another name, and one
 * that copies a dead letter's metadata over another body.
 */
async function plantBlobs(sasUrl: string, instance: string): Promise<string[]> {
  const containerName = new URL(sasUrl).pathname.split("/").pop() as string;
  const container = BlobServiceClient.fromConnectionString(
    sharedStandIns().storageConnectionString,
  ).getContainerClient(containerName);
  const own = (await listBlobs(sasUrl)).find((blob) => blob.metadata.endpointid?.includes("/shared-a/"));
  if (own === undefined) throw new Error(`no dead letter of ${instance}`);
  const folder = own.name.slice(0, own.name.lastIndexOf("/") + 1);
  const planted = [
    { name: `${folder}planted.json`, body: cloudEvent("planted"), metadata: {} },
    { name: `${folder}a-1-copy.json`, body: own.body, metadata: own.metadata },
    { name: `${folder}forged.json`, body: cloudEvent("forged"), metadata: own.metadata },
    {
      name: `same-name/2020/01/01/00/${randomBytes(4).toString("hex")}.json`,
      body: cloudEvent("old"),
      metadata: { ...own.metadata, deadlettermark: randomBytes(32).toString("hex") },
    },
  ];
  for (const blob of planted) {
    const text = JSON.stringify(blob.body);
    await container
      .getBlockBlobClient(blob.name)
      .upload(text, Buffer.byteLength(text), { metadata: blob.metadata });
  }
  return planted.map((blob) => blob.name);
}
