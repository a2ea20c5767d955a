import { randomBytes, randomUUID } from "node:crypto";
import { QueueServiceClient } from "@azure/storage-queue";
import { type QueueTrigger, startQueueTrigger } from "../../dev/queue-trigger";
import { DeadLetterMarks } from "../../src/delivery/dead-letter-mark";
import { DeadLetterWriter } from "../../src/delivery/dead-letter-writer";
import { DeliveryQueues } from "../../src/delivery/delivery-queues";
import {
  cloudEvent,
  deadLetterEndpoint,
  deadLetterUrl,
  listBlobs,
  queuedEventIds,
  sasUrlThrough,
} from "../support/delivery-kit";
import { type PausableRelay, startPausableRelay } from "../support/pausable-relay";
import { sharedStandIns } from "../support/stand-ins-env";
import { timed } from "../support/timed";

// Delivery's own storage calls against an account that stops answering (a relay in front of the
// shared Azurite that reads requests and answers nothing): the retry and poison writes, the
// dead-letter writes and the local trigger's polling each give up at their deadline, fail as a
// storage failure does (so what they were for is tried again), and work again once storage answers.
// Without the deadline each would wait as long as the connection stays open.

jest.setTimeout(60_000);

const DEADLINE_MS = 1500;
const direct = sharedStandIns().storageConnectionString;
const portOf = (service: "Queue" | "Blob") =>
  Number(new RegExp(`${service}Endpoint=http://127\\.0\\.0\\.1:(\\d+)/`).exec(direct)?.[1]);
const relays: PausableRelay[] = [];

afterEach(async () => {
  for (const relay of relays.splice(0)) {
    relay.resume();
    await relay.close();
  }
});

async function relayTo(port: number): Promise<PausableRelay> {
  const relay = await startPausableRelay(port);
  relays.push(relay);
  return relay;
}

/** A queue and its poison queue, both unmade, and the service's writes to them through a pausable relay. */
async function deliveryQueuesThroughRelay(prefix: string) {
  const queuePort = portOf("Queue");
  const relay = await relayTo(queuePort);
  const viaRelay = QueueServiceClient.fromConnectionString(
    direct.replace(`127.0.0.1:${queuePort}/`, `127.0.0.1:${relay.port}/`),
  );
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  const queues = new DeliveryQueues(
    viaRelay.getQueueClient(name),
    viaRelay.getQueueClient(`${name}-poison`),
    DEADLINE_MS,
  );
  return { relay, queues, name };
}

async function deleteQueues(name: string): Promise<void> {
  const service = QueueServiceClient.fromConnectionString(direct);
  await Promise.all([
    service.getQueueClient(name).deleteIfExists(),
    service.getQueueClient(`${name}-poison`).deleteIfExists(),
  ]);
}

/** A retry message's envelope, as delivery writes it. */
const RETRY_ENVELOPE = {
  twinsInstanceId: "/i/hang",
  retry: { endpointName: "ep", attempt: 1, lastError: "unreachable" },
};

/**
 * `work`, started while the relay answers nothing, which it does until the work has ended and the
 * client has given up a request the relay held: a call without its deadline would hang (the test
 * fails), not be answered late. What the relay held stays held, for the test to resume.
 */
async function whileSilent<T>(relay: PausableRelay, work: () => Promise<T>): Promise<T> {
  const givenUpBefore = relay.givenUp();
  relay.pause();
  const outcome = await work();
  await relay.untilGivenUp(givenUpBefore + 1);
  return outcome;
}

/** Failed, at its deadline or after. */
function expectAbandonedAtDeadline(outcome: { ms: number; error: unknown }): void {
  expect(outcome.error).toBeInstanceOf(Error);
  expect(outcome.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 100);
}

it("a retry or poison write that gets no answer fails at its deadline, and the next one lands once storage answers", async () => {
  const { relay, queues, name } = await deliveryQueuesThroughRelay("hang-retry");
  // Both queues are made before the account stops answering; the writes then wait on nothing else.
  await queues.scheduleRetry(RETRY_ENVELOPE, [cloudEvent("first")], 0);
  await queues.poisonEvents({ reason: "DeadLetterWriteFailed", detail: "first" }, [cloudEvent("p-first")]);

  expectAbandonedAtDeadline(
    await whileSilent(relay, () => timed(queues.scheduleRetry(RETRY_ENVELOPE, [cloudEvent("hung")], 0))),
  );
  expectAbandonedAtDeadline(
    await whileSilent(relay, () =>
      timed(queues.poisonEvents({ reason: "DeadLetterWriteFailed", detail: "x" }, [cloudEvent("p-hung")])),
    ),
  );

  relay.resume();
  await queues.scheduleRetry(RETRY_ENVELOPE, [cloudEvent("after")], 0);
  // The abandoned write may still land once the service wakes: delivery is at least once.
  const stored = await queuedEventIds(name);
  expect(stored.filter((id) => id !== "hung")).toEqual(["first", "after"]);
  await deleteQueues(name);
});

it("many first writes racing while the queue is still being created all fail at one deadline, and the next writes create it", async () => {
  const { relay, queues, name } = await deliveryQueuesThroughRelay("hang-first");
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  try {
    // Nothing exists yet: every write waits on the one creation of the queue, which gets no answer.
    const sentBefore = relay.requestLines().length;
    const outcomes = await whileSilent(relay, () =>
      Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          timed(queues.scheduleRetry(RETRY_ENVELOPE, [cloudEvent(`race-${index}`)], 0)),
        ),
      ),
    );
    for (const outcome of outcomes) expectAbandonedAtDeadline(outcome);
    // One deadline for all of them, not one after another: the store was asked to create the
    // queue once, and for nothing else (each write waiting its own turn would ask again).
    expect(relay.requestLines().slice(sentBefore)).toEqual([
      expect.stringMatching(new RegExp(`^PUT /[^/]+/${name}[? ]`)),
    ]);

    // The failed creation is not remembered: once storage answers, the next writes make the queue.
    relay.resume();
    await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        queues.scheduleRetry(RETRY_ENVELOPE, [cloudEvent(`after-${index}`)], 0),
      ),
    );
    const stored = await queuedEventIds(name);
    expect(stored.filter((id) => id.startsWith("after-")).sort()).toEqual([
      "after-0",
      "after-1",
      "after-2",
      "after-3",
      "after-4",
    ]);
    expect(warnings.filter((warning) => warning.includes("MaxListenersExceeded"))).toEqual([]);
  } finally {
    process.off("warning", onWarning);
    await deleteQueues(name);
  }
});

it("a dead-letter write that gets no answer fails at its deadline, and writes once storage answers", async () => {
  const sasUrl = await deadLetterUrl();
  const blobPort = Number(new URL(sasUrl).port);
  const relay = await relayTo(blobPort);
  const viaRelay = sasUrlThrough(sasUrl, relay.port);
  const endpoint = deadLetterEndpoint(viaRelay);
  const writer = new DeadLetterWriter(new DeadLetterMarks(randomBytes(32)), DEADLINE_MS);
  const why = { reason: "TtlExpired", attempts: 3, lastError: "gone" } as const;

  expectAbandonedAtDeadline(
    await whileSilent(relay, () => timed(writer.write(endpoint, cloudEvent("hung"), why, new Date()))),
  );

  relay.resume();
  const place = await writer.write(endpoint, cloudEvent("after"), why, new Date());
  const bodies = (await listBlobs(sasUrl)).map((blob) => blob.body as { id: string });
  expect(bodies.map((body) => body.id)).toContain("after");
  expect(place.blobName).toContain("after");
});

it("the local trigger's poll that gets no answer fails at its deadline, and polling goes on once storage answers", async () => {
  const queuePort = portOf("Queue");
  const relay = await relayTo(queuePort);
  const queueName = `hang-poll-${randomUUID().slice(0, 8)}`;
  const warnings: string[] = [];
  const handled: unknown[] = [];
  const trigger: QueueTrigger = await startQueueTrigger({
    connectionString: direct.replace(`127.0.0.1:${queuePort}/`, `127.0.0.1:${relay.port}/`),
    queueName,
    functionName: "twin-events",
    handler: async (message) => {
      handled.push(JSON.parse(message));
    },
    settings: {
      batchSize: 8,
      newBatchThreshold: 4,
      maxDequeueCount: 5,
      visibilityTimeoutSeconds: 0,
      maxPollingIntervalMs: 250,
    },
    storageDeadlineMs: DEADLINE_MS,
    log: (level, _name, message) => {
      if (level === "warning") warnings.push(message);
    },
  });
  try {
    relay.pause();
    // Looked for until seen, with no bound of its own: a poll that never ends fails the test by
    // its timeout, not by how fast a loaded machine logs.
    const waitFor = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await waitFor(() => warnings.some((line) => line.includes(`Polling queue '${queueName}' failed`)));
    // Failed by the client giving the poll up, the store silent all along.
    await relay.untilGivenUp();

    relay.resume();
    const queue = QueueServiceClient.fromConnectionString(direct).getQueueClient(queueName);
    await queue.sendMessage(Buffer.from(JSON.stringify({ after: true })).toString("base64"));
    await waitFor(() => handled.length === 1);
    expect(handled).toEqual([{ after: true }]);
  } finally {
    await trigger.stop();
    await deleteQueues(queueName);
  }
});
