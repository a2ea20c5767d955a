import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { BlobServiceClient } from "@azure/storage-blob";
import { nameKey } from "../../src/common/name-key";
import { CLAIM_METADATA, REDELIVERED_METADATA } from "../../src/delivery/dead-letter-claims";
import { STORAGE_CALL_DEADLINE_MS } from "../../src/store/storage-deadline";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  deadLetteredSince,
  deadLetterUrl,
  ingest,
  listBlobs,
  sasUrlThrough,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import { startPausableRelay } from "../support/pausable-relay";
import { sharedStandIns } from "../support/stand-ins-env";
import type { TestHost } from "../support/test-host";

// Redelivery's exact promises over the wire (issue 28), on two hosts sharing a database and an
// event queue, against Azurite behind relays and a store that fails reads on demand: dead letters
// of a resource group named in any script are redelivered; a store that fails, refuses or does not
// answer reads ends the call as 503 (Retry-After) or 409, not a 200 counting every blob failed,
// and within one storage deadline rather than one per batch; a store that stalls while marks are
// written does not get any dead letter requeued twice; a copy of dead letters in another container
// the endpoint is then pointed at is not requeued.
jest.setTimeout(300_000);

let stack: DeliveryStack;
let hosts: TestHost[];
beforeAll(async () => {
  stack = await DeliveryStack.start({ DELIVERY_MAX_ATTEMPTS: "2" }, 2);
  hosts = stack.hosts;
});
afterAll(() => stack.stop());

const host = (index = 0) => hosts[index] as TestHost;

type Counts = { requeued: number; skipped: number; failed: number };

function redeliver(instance: string, name: string, body: unknown = {}, index = 0): Promise<Response> {
  return host(index).request(`${instance}/endpoints/${name}/redeliverDeadLetters?api-version=2026-11-01`, {
    method: "POST",
    body: JSON.stringify(body),
  });
}

async function counts(instance: string, name: string, body: unknown = {}, index = 0): Promise<Counts> {
  const response = await redeliver(instance, name, body, index);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`redelivery: ${response.status} ${text}`);
  return JSON.parse(text) as Counts;
}

async function patch(instance: string, name: string, body: Record<string, string>): Promise<void> {
  const response = await host().request(`${instance}/endpoints/${name}`, {
    method: "PATCH",
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`PATCH: ${response.status} ${await response.text()}`);
}

/** An endpoint whose broker is unreachable, with `ids` dead-lettered into a new container. */
async function deadLettered(instance: string, name: string, ids: string[], deadLetter?: string) {
  const sasUrl = deadLetter ?? (await deadLetterUrl());
  const broken = unreachableConnectionString(await closedPort(), `${name}-topic`);
  await createEndpoint(host(), instance, name, { primary: broken, secondary: broken, deadLetter: sasUrl });
  const marks = stack.logMarks();
  for (let start = 0; start < ids.length; start += 100) {
    await ingest(
      host(),
      instance,
      ids.slice(start, start + 100).map((id) => cloudEvent(id)),
    );
  }
  await waitUntil(
    () => deadLetteredSince(hosts, marks) >= ids.length,
    120_000,
    `${ids.length} events dead-lettered`,
  );
  return sasUrl;
}

/** The endpoint pointed at a topic of the stand-in, with a subscriber on it. */
function fixed(instance: string, name: string, extra: Record<string, string> = {}) {
  const topic = `${name}-topic`;
  const subscriber = stack.subscribe(topic);
  const connection = stack.serviceBus.connectionString(topic);
  return {
    subscriber,
    done: patch(instance, name, {
      queuePrimaryConnectionString: connection,
      queueSecondaryConnectionString: connection,
      ...extra,
    }),
  };
}

/** How many times each id arrived, once no more are on their way. */
async function arrivals(subscriber: { ids(): string[] }, expected: number): Promise<Map<string, number>> {
  await waitUntil(() => subscriber.ids().length >= expected, 120_000, `${expected} events delivered`);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const seen = new Map<string, number>();
  for (const id of subscriber.ids()) seen.set(id, (seen.get(id) ?? 0) + 1);
  return seen;
}

function container(sasUrl: string) {
  return BlobServiceClient.fromConnectionString(sharedStandIns().storageConnectionString).getContainerClient(
    new URL(sasUrl).pathname.split("/").pop() as string,
  );
}

async function errorOf(response: Response) {
  const body = (await response.json()) as { error: { code: string; message: string; target?: string } };
  return { status: response.status, retryAfter: response.headers.get("retry-after"), ...body.error };
}

it("redelivers the dead letters of a resource group named in another script, with or without force, however the call spells it", async () => {
  const group = "grupo-ñandú";
  const instance = `/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/${group}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/nandu`;
  const sasUrl = await deadLettered(instance, "nandu-ep", ["n-1", "n-2"]);

  const { subscriber, done } = fixed(instance, "nandu-ep");
  await done;
  const upper = instance.replace(group, group.toUpperCase());
  expect(await counts(upper, "nandu-ep")).toEqual({ requeued: 2, skipped: 0, failed: 0 });
  expect(await counts(instance, "nandu-ep", { force: true })).toEqual({ requeued: 2, skipped: 0, failed: 0 });
  const seen = await arrivals(subscriber, 4);
  expect(Object.fromEntries(seen)).toEqual({ "n-1": 2, "n-2": 2 });

  // The metadata name the endpoint reversibly, in ASCII: no "?" standing for every other letter.
  const endpointId = `${instance}/endpoints/nandu-ep`;
  for (const blob of await listBlobs(sasUrl)) {
    expect(blob.metadata.endpointid).toMatch(/^[\x21-\x7e]+$/);
    expect(decodeURIComponent(blob.metadata.endpointid as string)).toBe(nameKey(endpointId));
  }
});

/**
 * A store in front of Azurite that answers every read of a blob (GET without `comp`) with
 * `failure` while one is set, and passes everything else, and every read once it is cleared.
 */
async function failingReads() {
  const target = new URL(
    /BlobEndpoint=([^;]+)/.exec(sharedStandIns().storageConnectionString)?.[1] as string,
  );
  const state: { failure?: { status: number; code: string }; reads: number } = { reads: 0 };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://store");
    const read =
      request.method === "GET" && !url.searchParams.has("comp") && !url.searchParams.has("restype");
    if (read) state.reads++;
    if (read && state.failure !== undefined) {
      const { status, code } = state.failure;
      response.writeHead(status, { "x-ms-error-code": code, "content-type": "application/xml" });
      response.end(
        `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>no</Message></Error>`,
      );
      return;
    }
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on("error", () => response.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { state, port: (server.address() as AddressInfo).port, close: () => server.close() };
}

describe("a store whose reads fail", () => {
  const ids = Array.from({ length: 24 }, (_, index) => `f-${String(index).padStart(2, "0")}`);

  it("answers 503 with Retry-After when reads answer 503, 409 saying read permission is lacking when they answer 403, and redelivers each once when they work", async () => {
    const instance = twinsInstance("read-faults");
    const sasUrl = await deadLettered(instance, "reads-ep", ids);
    const store = await failingReads();
    try {
      const { subscriber, done } = fixed(instance, "reads-ep", {
        deadLetterStorageSecret: sasUrlThrough(sasUrl, store.port),
      });
      await done;

      store.state.failure = { status: 503, code: "ServerBusy" };
      const busy = await errorOf(await redeliver(instance, "reads-ep"));
      expect(busy).toMatchObject({ status: 503, code: "ServiceUnavailable" });
      expect(Number(busy.retryAfter)).toBeGreaterThan(0);
      expect(busy.message).toMatch(/did not answer while the dead letters were being read/);
      // It stopped at the first batch: not a try of every blob.
      expect(store.state.reads).toBeLessThanOrEqual(2 * 8);

      store.state.failure = { status: 403, code: "AuthorizationPermissionMismatch" };
      const refused = await errorOf(await redeliver(instance, "reads-ep"));
      expect(refused).toMatchObject({
        status: 409,
        code: "DeadLettersUnavailable",
        target: "deadLetterStorageSecret",
      });
      expect(refused.message).toMatch(
        /cannot be read: .*403 AuthorizationPermissionMismatch.*lacks read \(r\) permission/,
      );

      store.state.failure = undefined;
      expect(await counts(instance, "reads-ep")).toEqual({ requeued: ids.length, skipped: 0, failed: 0 });
      const seen = await arrivals(subscriber, ids.length);
      expect([...seen.keys()].sort()).toEqual(ids);
      expect([...seen.values()].every((times) => times === 1)).toBe(true);
    } finally {
      store.close();
    }
  });

  it("answers 503 within one storage deadline when reads get no answer, not 20 s per batch of blobs", async () => {
    const instance = twinsInstance("read-hang");
    const sasUrl = await deadLettered(instance, "hang-ep", ids);
    // The first read of a blob pauses the relay: from there on the store answers nothing.
    const firstRead = (chunk: Buffer) => /^GET [^?\s]+\.json\?/.test(chunk.toString("latin1"));
    const relay = await startPausableRelay(Number(new URL(sasUrl).port), firstRead);
    try {
      const { done } = fixed(instance, "hang-ep", {
        deadLetterStorageSecret: sasUrlThrough(sasUrl, relay.port),
      });
      await done;
      const started = performance.now();
      const error = await errorOf(await redeliver(instance, "hang-ep"));
      const ms = performance.now() - started;
      expect(error).toMatchObject({ status: 503, code: "ServiceUnavailable" });
      expect(Number(error.retryAfter)).toBeGreaterThan(0);
      // Ended by the storage deadline of the reads the store left unanswered...
      expect(ms).toBeGreaterThanOrEqual(STORAGE_CALL_DEADLINE_MS - 100);
      // ...of one batch of 8 (the first 8 listed): it began no other batch, whose reads would each
      // have waited a deadline of their own. Counted at the store, not timed (the SDK may try a
      // request twice within its deadline, so blobs are counted, not requests).
      const blobsAsked = relay
        .requestLines()
        .map((line) => /^(?:HEAD|GET) [^?\s]+\/([^/?\s]+)\.json\?/.exec(line)?.[1])
        .filter((blob) => blob !== undefined);
      expect([...new Set(blobsAsked)].sort()).toEqual(ids.slice(0, 8));
    } finally {
      relay.resume();
      await relay.close();
    }
  });
});

it("requeues each of 160 dead letters once when the store stalls past a storage deadline while four calls on two hosts mark them, even after their claims lapse", async () => {
  const instance = twinsInstance("stall");
  const ids = Array.from({ length: 160 }, (_, index) => `s-${String(index).padStart(3, "0")}`);
  const sasUrl = await deadLettered(instance, "stall-ep", ids);
  // The first `redelivered` mark written pauses the relay: the event is queued, its mark is not.
  const firstMark = (chunk: Buffer) =>
    chunk.toString("latin1").includes(`x-ms-meta-${REDELIVERED_METADATA}:`);
  const relay = await startPausableRelay(Number(new URL(sasUrl).port), firstMark);
  const stalled = sasUrlThrough(sasUrl, relay.port);
  try {
    const { subscriber, done } = fixed(instance, "stall-ep", { deadLetterStorageSecret: stalled });
    await done;
    const calls = [0, 1, 0, 1].map((index) => redeliver(instance, "stall-ep", {}, index));
    // Silent until a call gives up a request it sent (one storage deadline), well within the
    // marks' tries (two deadlines): marks tried meanwhile are in doubt, and are tried again.
    await relay.untilGivenUp();
    relay.resume();
    // Answers of the stalled calls: 200, or 503 for the store that stopped answering.
    for (const answer of await Promise.all(calls)) expect([200, 503]).toContain(answer.status);

    // Whatever the stalled calls left is requeued by plain calls after it.
    for (let call = 0; call < 10; call++) {
      const blobs = await listBlobs(sasUrl);
      if (blobs.every((blob) => blob.metadata[REDELIVERED_METADATA] !== undefined)) break;
      const answer = await redeliver(instance, "stall-ep", {}, call % 2);
      expect([200, 503]).toContain(answer.status);
      if (blobs.some((blob) => blob.metadata[CLAIM_METADATA] !== undefined)) await ageClaims(sasUrl);
    }
    // Five minutes later: every claim lapses. A dead letter whose event was queued but whose mark
    // was lost would now be requeued again.
    await ageClaims(sasUrl);
    expect(await counts(instance, "stall-ep", {}, 1)).toEqual({
      requeued: 0,
      skipped: ids.length,
      failed: 0,
    });

    const seen = await arrivals(subscriber, ids.length);
    const twice = [...seen].filter(([, times]) => times > 1).map(([id]) => id);
    expect(twice).toEqual([]);
    expect([...seen.keys()].sort()).toEqual(ids);
  } finally {
    relay.resume();
    await relay.close();
  }
});

/** Moves every claim of the container's blobs 6 minutes back, as if its 5 minutes had passed. */
async function ageClaims(sasUrl: string): Promise<void> {
  const blobs = container(sasUrl);
  const old = new Date(Date.now() - 6 * 60_000).toISOString();
  for (const blob of await listBlobs(sasUrl)) {
    if (blob.metadata[CLAIM_METADATA] === undefined) continue;
    await blobs.getBlobClient(blob.name).setMetadata({ ...blob.metadata, [CLAIM_METADATA]: old });
  }
}

it("does not requeue a copy of dead letters in another container the endpoint is then pointed at, and still redelivers from the first one under a new SAS", async () => {
  const instance = twinsInstance("copied");
  const ids = ["c-1", "c-2", "c-3"];
  const first = await deadLettered(instance, "copied-ep", ids);
  // Copied with their metadata before they were redelivered, so no `redelivered` mark comes along.
  const second = await deadLetterUrl();
  const target = container(second);
  await target.createIfNotExists();
  for (const blob of await listBlobs(first)) {
    const text = JSON.stringify(blob.body);
    await target
      .getBlockBlobClient(blob.name)
      .upload(text, Buffer.byteLength(text), { metadata: blob.metadata });
  }

  const { subscriber, done } = fixed(instance, "copied-ep");
  await done;
  expect(await counts(instance, "copied-ep")).toEqual({ requeued: 3, skipped: 0, failed: 0 });

  await patch(instance, "copied-ep", { deadLetterStorageSecret: second });
  const logFrom = stack.logMarks();
  expect(await counts(instance, "copied-ep")).toEqual({ requeued: 0, skipped: 3, failed: 0 });
  expect(await counts(instance, "copied-ep", { force: true }, 1)).toEqual({
    requeued: 0,
    skipped: 3,
    failed: 0,
  });
  const skipped = hosts
    .flatMap((each, index) => each.logs.slice(logFrom[index]))
    .filter((entry) => entry.message.startsWith("dead-letter redelivery: blob skipped:"));
  expect(skipped.length).toBeGreaterThanOrEqual(3);
  for (const entry of skipped) expect(entry.message).toMatch(/does not match this container/);

  // The same container under another SAS token is the same place: force redelivers from it.
  await patch(instance, "copied-ep", {
    deadLetterStorageSecret: await deadLetterUrl(new URL(first).pathname.split("/").pop()),
  });
  expect(await counts(instance, "copied-ep", { force: true })).toEqual({
    requeued: 3,
    skipped: 0,
    failed: 0,
  });

  const seen = await arrivals(subscriber, 6);
  expect(Object.fromEntries(seen)).toEqual({ "c-1": 2, "c-2": 2, "c-3": 2 });
});
