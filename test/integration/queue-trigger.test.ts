import { randomUUID } from "node:crypto";
import { type QueueClient, QueueServiceClient } from "@azure/storage-queue";
import type { RpcTypedData } from "../../dev/functions-worker";
import type { HostSettings } from "../../dev/host-json";
import { type QueueTrigger, type QueueTriggerOptions, startQueueTrigger } from "../../dev/queue-trigger";
import { sharedStandIns } from "../support/stand-ins-env";
import type { LogEntry } from "../support/test-host";

// Against the shared Azurite from global setup; every test has queues of its own.

const WAIT_MS = 45_000;
jest.setTimeout(90_000);

const service = () => QueueServiceClient.fromConnectionString(sharedStandIns().storageConnectionString);
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Small, fast settings: retries become visible at once and an idle queue is polled often. */
const queueSettings = (overrides: Partial<HostSettings["queues"]> = {}): HostSettings["queues"] => ({
  batchSize: 16,
  newBatchThreshold: 8,
  maxDequeueCount: 5,
  visibilityTimeoutSeconds: 0,
  maxPollingIntervalMs: 250,
  ...overrides,
});

/** Polls until probe returns something truthy; fails naming what it waited for. */
async function waitFor<T>(what: string, probe: () => T | Promise<T>): Promise<T> {
  for (const deadline = Date.now() + WAIT_MS; Date.now() <= deadline; await sleep(50)) {
    const value = await probe();
    if (value) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Counts invisible (in-flight) messages too, so 0 means every message was deleted. */
const messageCount = async (queue: QueueClient) => (await queue.getProperties()).approximateMessagesCount;
const peekTexts = async (queue: QueueClient) =>
  (await queue.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.map((item) => item.messageText);
const dequeueCountOf = (metadata: Record<string, RpcTypedData>) => Number(metadata.DequeueCount?.json);

/** Waits for the main queue to be empty and the poison queue to hold exactly `texts`. */
async function expectPoisoned(texts: string[]): Promise<void> {
  await waitFor("the poison message", async () => (await peekTexts(poisonQueue)).length === texts.length);
  await waitFor("the main queue to be empty", async () => (await messageCount(queue)) === 0);
  expect(await peekTexts(poisonQueue)).toEqual(texts);
}

let queueName: string;
let queue: QueueClient;
let poisonQueue: QueueClient;
let logs: LogEntry[];
const triggers: QueueTrigger[] = [];

beforeEach(async () => {
  queueName = `qt-${randomUUID().slice(0, 8)}`;
  queue = service().getQueueClient(queueName);
  poisonQueue = service().getQueueClient(`${queueName}-poison`);
  logs = [];
  // Created here too so messages can be put on the queue before a trigger starts.
  await queue.createIfNotExists();
});

afterEach(async () => {
  await Promise.all(triggers.splice(0).map((trigger) => trigger.stop()));
  await Promise.all([queue.deleteIfExists(), poisonQueue.deleteIfExists()]);
});

type Handler = QueueTriggerOptions["handler"];
async function startTrigger(handler: Handler, options: Partial<QueueTriggerOptions> = {}) {
  const trigger = await startQueueTrigger({
    connectionString: sharedStandIns().storageConnectionString,
    queueName,
    functionName: "twin-events",
    handler,
    settings: queueSettings(),
    log: (level, functionName, message) => logs.push({ level, functionName, message }),
    ...options,
  });
  triggers.push(trigger);
  return trigger;
}
const logged = (text: string, level?: string) =>
  logs.some((entry) => entry.message.includes(text) && (!level || entry.level === level));

describe("the local queue trigger", () => {
  it("hands the handler the decoded text with the real trigger's binding data, and deletes it after success", async () => {
    const calls: Parameters<Handler>[] = [];
    const sent = await queue.sendMessage(base64("twin t-1 changed"));
    await startTrigger(async (...call) => void calls.push(call));
    await waitFor("the message to be deleted", async () => calls.length && !(await messageCount(queue)));
    const [[text, metadata, invocationId] = []] = calls;
    expect(calls).toHaveLength(1);
    expect(text).toBe("twin t-1 changed");
    expect(invocationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(metadata).toEqual({
      Id: { string: sent.messageId },
      DequeueCount: { json: "1" },
      PopReceipt: { string: expect.any(String) },
      InsertionTime: { string: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/) },
      ExpirationTime: { string: expect.stringMatching(/\+00:00$/) },
      NextVisibleTime: { string: expect.stringMatching(/\+00:00$/) },
    });
  });

  it("retries a failing message maxDequeueCount times, then moves its original text to <queue>-poison", async () => {
    const dequeueCounts: number[] = [];
    const original = base64(JSON.stringify({ secret: "customer-payload" }));
    await queue.sendMessage(original);
    await startTrigger(
      async (_message, metadata) => {
        dequeueCounts.push(dequeueCountOf(metadata));
        throw new Error("endpoint unreachable");
      },
      { settings: queueSettings({ maxDequeueCount: 3 }) },
    );
    await expectPoisoned([original]);
    expect(dequeueCounts).toEqual([1, 2, 3]);
    const failures = logs.filter((entry) => entry.level === "error").map((entry) => entry.message);
    expect(failures).toEqual(Array(3).fill(expect.stringContaining("endpoint unreachable")));
    expect(logged(`Moving message to queue '${queueName}-poison'`)).toBe(true);
    // The body is customer data and may be large: it never reaches the log.
    expect(logged("customer-payload") || logged(original)).toBe(false);
  });

  it("releases a failed message for a retry after host.json's visibilityTimeout, content intact", async () => {
    const calls: { at: number; message: string; dequeueCount: number }[] = [];
    await queue.sendMessage(base64("retry me"));
    await startTrigger(
      async (message, metadata) => {
        calls.push({ at: Date.now(), message, dequeueCount: dequeueCountOf(metadata) });
        if (calls.length === 1) throw new Error("transient");
      },
      { settings: queueSettings({ visibilityTimeoutSeconds: 2 }) },
    );
    await waitFor("the retry to succeed", async () => calls.length === 2 && !(await messageCount(queue)));
    // Storage times are whole seconds, so allow for rounding below the 2 s.
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(calls.map((call) => `${call.message} #${call.dequeueCount}`)).toEqual([
      "retry me #1",
      "retry me #2",
    ]);
    expect(await peekTexts(poisonQueue)).toEqual([]);
  });

  it("runs at most batchSize + newBatchThreshold handlers at once (4 + 2), and each message exactly once", async () => {
    for (let n = 0; n < 20; n++) await queue.sendMessage(base64(String(n)));
    let [running, mostRunning] = [0, 0];
    const processed: number[] = [];
    const handler = async (message: string) => {
      mostRunning = Math.max(mostRunning, ++running);
      await sleep(100);
      running--;
      processed.push(Number(message));
    };
    await startTrigger(handler, { settings: queueSettings({ batchSize: 4, newBatchThreshold: 2 }) });
    await waitFor("all to be deleted", async () => processed.length >= 20 && !(await messageCount(queue)));
    expect([...processed].sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(mostRunning).toBeLessThanOrEqual(6);
    expect(mostRunning).toBeGreaterThan(1);
  });

  it("renews the lock of a slow handler so its message is not delivered twice", async () => {
    let calls = 0;
    await queue.sendMessage(base64("slow"));
    const slow = async () => {
      calls++;
      await sleep(5000);
    };
    await startTrigger(slow, { lockSeconds: 2 });
    // Deleted only after the handler succeeded, so this waits for it to finish.
    await waitFor("the message to be deleted", async () => calls && !(await messageCount(queue)));
    expect(calls).toBe(1);
    expect(logs.filter((entry) => entry.level !== "information")).toEqual([]);
  });

  it("stop() waits for a running handler to finish and settle its message", async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const steps: string[] = [];
    await queue.sendMessage(base64("in flight"));
    const trigger = await startTrigger(async () => {
      steps.push("started");
      await released;
      steps.push("finished");
    });
    await waitFor("the handler to start", () => steps.length);
    const stopping = trigger.stop().then(() => steps.push("stopped"));
    await sleep(300);
    release();
    await stopping;
    expect(steps).toEqual(["started", "finished", "stopped"]);
    expect(await messageCount(queue)).toBe(0);
  });

  it("a stop that gives up on a hung handler leaves its message for the next trigger, never deleting it", async () => {
    await queue.sendMessage(base64("hang"));
    let hungCalls = 0;
    const abandoned = await startTrigger(
      () => {
        hungCalls++;
        return new Promise<void>(() => {});
      },
      { lockSeconds: 2, stopTimeoutSeconds: 0.5 },
    );
    await waitFor("the hung handler to start", () => hungCalls === 1);
    await abandoned.stop();
    expect(logged("1 handler(s) still running")).toBe(true);
    const recovered: [string, number][] = [];
    await startTrigger(async (message, metadata) => void recovered.push([message, dequeueCountOf(metadata)]));
    await waitFor("the next trigger to run it", async () => recovered.length && !(await messageCount(queue)));
    expect(recovered).toEqual([["hang", 2]]);
  });

  it("moves a message that is not valid base64 straight to <queue>-poison, unchanged and unseen by the handler", async () => {
    let calls = 0;
    await queue.sendMessage("not base64 at all!");
    await startTrigger(async () => void calls++);
    await expectPoisoned(["not base64 at all!"]);
    expect(calls).toBe(0);
    expect(logged("is not valid base64", "warning")).toBe(true);
  });

  it("poisons, without running the handler, a message already dequeued more than maxDequeueCount times", async () => {
    const original = base64("crashed the host every time");
    await queue.sendMessage(original);
    // One delivery that never finished (say, the process died): its dequeueCount is now 1.
    await queue.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 1 });
    let calls = 0;
    await startTrigger(async () => void calls++, { settings: queueSettings({ maxDequeueCount: 1 }) });
    await expectPoisoned([original]);
    expect(calls).toBe(0);
  });
});
