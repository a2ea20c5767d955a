import { randomUUID } from "node:crypto";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { InvocationContext } from "@azure/functions";
import { type QueueClient, QueueServiceClient } from "@azure/storage-queue";
import type { HostSettings } from "../../dev/host-json";
import {
  QUEUE_TRIGGER_RECEIVED,
  type QueueTrigger,
  type QueueTriggerOptions,
  startQueueTrigger,
} from "../../dev/queue-trigger";
import { sharedStandIns } from "../support/stand-ins-env";
import type { LogEntry } from "../support/test-host";

// Against the shared Azurite from global setup; every test has queues of its own.

const WAIT_MS = 45_000;
jest.setTimeout(90_000);

const service = () => QueueServiceClient.fromConnectionString(sharedStandIns().storageConnectionString);
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Small, fast settings: retries become visible at once and an idle queue is polled often. */
function queueSettings(overrides: Partial<HostSettings["queues"]> = {}): HostSettings["queues"] {
  return {
    batchSize: 16,
    newBatchThreshold: 8,
    maxDequeueCount: 5,
    visibilityTimeoutSeconds: 0,
    maxPollingIntervalMs: 250,
    ...overrides,
  };
}

/** Polls until probe returns something truthy; fails naming what it waited for. */
async function waitFor<T>(what: string, probe: () => T | Promise<T>, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Counts invisible (in-flight) messages too, so 0 means every message was deleted. */
async function messageCount(queue: QueueClient): Promise<number> {
  return (await queue.getProperties()).approximateMessagesCount ?? -1;
}

async function peekTexts(queue: QueueClient): Promise<string[]> {
  const peeked = await queue.peekMessages({ numberOfMessages: 32 });
  return peeked.peekedMessageItems.map((item) => item.messageText);
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

async function startTrigger(
  handler: QueueTriggerOptions["handler"],
  options: Partial<QueueTriggerOptions> = {},
): Promise<QueueTrigger> {
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

interface Call {
  message: unknown;
  context: InvocationContext;
}

describe("the local queue trigger", () => {
  it("creates the queue and its poison queue when they are missing", async () => {
    await queue.delete();
    await startTrigger(async () => {});
    expect(await queue.exists()).toBe(true);
    expect(await poisonQueue.exists()).toBe(true);
  });

  it("hands the handler a JSON message parsed, with the real trigger's metadata, and deletes it after success", async () => {
    const calls: Call[] = [];
    const sent = await queue.sendMessage(base64(JSON.stringify({ twinId: "t-1", value: 42 })));
    await startTrigger(async (message, context) => {
      calls.push({ message, context });
    });

    await waitFor(
      "the message to be deleted",
      async () => calls.length === 1 && (await messageCount(queue)) === 0,
    );
    const [call] = calls;
    expect(call?.message).toEqual({ twinId: "t-1", value: 42 });
    expect(call?.context.functionName).toBe("twin-events");
    expect(call?.context.invocationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(call?.context.options.trigger.type).toBe("queueTrigger");
    expect(call?.context.triggerMetadata).toEqual({
      queueTrigger: { twinId: "t-1", value: 42 },
      id: sent.messageId,
      dequeueCount: 1,
      popReceipt: expect.any(String),
      insertionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      expirationTime: expect.stringMatching(/\+00:00$/),
      nextVisibleTime: expect.stringMatching(/\+00:00$/),
    });
  });

  it("notes each poll that found messages on its diagnostics channel, and no empty one", async () => {
    const notes: { queue: string; messages: number; at: number }[] = [];
    const onReceived = (note: unknown) => notes.push(note as (typeof notes)[number]);
    subscribe(QUEUE_TRIGGER_RECEIVED, onReceived);
    try {
      let handled = 0;
      await startTrigger(async () => {
        handled++;
      });
      await sleep(600); // several empty polls first
      expect(notes.filter((note) => note.queue === queueName)).toEqual([]);
      const before = performance.now();
      await Promise.all([1, 2, 3].map((n) => queue.sendMessage(base64(JSON.stringify({ n })))));
      await waitFor("the three messages to be handled", () => handled === 3);
      const ours = notes.filter((note) => note.queue === queueName);
      expect(ours.reduce((sum, note) => sum + note.messages, 0)).toBe(3);
      for (const note of ours) expect(note.at).toBeGreaterThanOrEqual(before);
    } finally {
      unsubscribe(QUEUE_TRIGGER_RECEIVED, onReceived);
    }
  });

  it("hands the handler a message that is not JSON as its text", async () => {
    const messages: unknown[] = [];
    await queue.sendMessage(base64("twin t-1 changed"));
    await startTrigger(async (message) => {
      messages.push(message);
    });

    await waitFor(
      "the message to be deleted",
      async () => messages.length === 1 && (await messageCount(queue)) === 0,
    );
    expect(messages).toEqual(["twin t-1 changed"]);
  });

  it("passes the handler's context.log lines to the host logger", async () => {
    await queue.sendMessage(base64("{}"));
    await startTrigger(async (_message, context) => {
      context.log("delivered", 3, "events");
    });

    await waitFor("the handler's log line", () =>
      logs.find((entry) => entry.level === "information" && entry.message === "delivered 3 events"),
    );
  });

  it("retries a failing message maxDequeueCount times, then moves its original text to <queue>-poison", async () => {
    const dequeueCounts: unknown[] = [];
    const original = base64(JSON.stringify({ secret: "customer-payload" }));
    await queue.sendMessage(original);
    await startTrigger(
      async (_message, context) => {
        dequeueCounts.push(context.triggerMetadata?.dequeueCount);
        throw new Error("endpoint unreachable");
      },
      { settings: queueSettings({ maxDequeueCount: 3, visibilityTimeoutSeconds: 0 }) },
    );

    await waitFor("the poison message", async () => (await peekTexts(poisonQueue)).length === 1);
    await waitFor("the main queue to be empty", async () => (await messageCount(queue)) === 0);
    expect(await peekTexts(poisonQueue)).toEqual([original]);
    expect(dequeueCounts).toEqual([1, 2, 3]);

    const failures = logs.filter((entry) => entry.level === "error");
    expect(failures).toHaveLength(3);
    for (const failure of failures) expect(failure.message).toContain("endpoint unreachable");
    expect(
      logs.some((entry) => entry.message.includes(`Moving message to queue '${queueName}-poison'`)),
    ).toBe(true);
    // The body is customer data and may be large: it never reaches the log.
    for (const entry of logs) {
      expect(entry.message).not.toContain("customer-payload");
      expect(entry.message).not.toContain(original);
    }
  });

  it("waits host.json's visibilityTimeout before retrying a failed message", async () => {
    const calledAt: number[] = [];
    await queue.sendMessage(base64("retry me"));
    await startTrigger(
      async () => {
        calledAt.push(Date.now());
        if (calledAt.length === 1) throw new Error("transient");
      },
      { settings: queueSettings({ visibilityTimeoutSeconds: 2 }) },
    );

    await waitFor(
      "the retry to succeed",
      async () => calledAt.length === 2 && (await messageCount(queue)) === 0,
    );
    const [first = 0, second = 0] = calledAt;
    // Storage times are whole seconds, so allow for rounding below the 2 s.
    expect(second - first).toBeGreaterThanOrEqual(900);
  });

  it("processes a message that failed once on its second delivery (dequeueCount 2), without poisoning it", async () => {
    const calls: Call[] = [];
    await queue.sendMessage(base64(JSON.stringify({ attempt: "any" })));
    await startTrigger(async (message, context) => {
      calls.push({ message, context });
      if (calls.length === 1) throw new Error("first try fails");
    });

    await waitFor(
      "the message to be deleted",
      async () => calls.length === 2 && (await messageCount(queue)) === 0,
    );
    expect(calls.map((call) => call.context.triggerMetadata?.dequeueCount)).toEqual([1, 2]);
    // Releasing the message for a retry keeps its content.
    expect(calls[1]?.message).toEqual({ attempt: "any" });
    expect(await peekTexts(poisonQueue)).toEqual([]);
  });

  it.each([
    { batchSize: 4, newBatchThreshold: 0, limit: 4 },
    { batchSize: 4, newBatchThreshold: 2, limit: 6 },
  ])(
    "runs at most batchSize + newBatchThreshold handlers at once ($batchSize + $newBatchThreshold) and each message exactly once",
    async ({ batchSize, newBatchThreshold, limit }) => {
      for (let n = 0; n < 20; n++) await queue.sendMessage(base64(JSON.stringify({ n })));
      let running = 0;
      let mostRunning = 0;
      const processed: number[] = [];
      await startTrigger(
        async (message) => {
          running++;
          mostRunning = Math.max(mostRunning, running);
          await sleep(100);
          running--;
          processed.push((message as { n: number }).n);
        },
        { settings: queueSettings({ batchSize, newBatchThreshold }) },
      );

      await waitFor(
        "all messages to be deleted",
        async () => processed.length >= 20 && (await messageCount(queue)) === 0,
      );
      expect([...processed].sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
      expect(mostRunning).toBeLessThanOrEqual(limit);
      expect(mostRunning).toBeGreaterThan(1);
    },
  );

  it("renews the lock of a slow handler so its message is not delivered twice", async () => {
    let calls = 0;
    let finished = false;
    await queue.sendMessage(base64("slow"));
    await startTrigger(
      async () => {
        calls++;
        await sleep(5000);
        finished = true;
      },
      { lockSeconds: 2 },
    );

    await waitFor("the slow handler to finish", () => finished);
    await waitFor("the message to be deleted", async () => (await messageCount(queue)) === 0);
    expect(calls).toBe(1);
    expect(logs.filter((entry) => entry.level !== "information")).toEqual([]);
  });

  it("stop() waits for a running handler to finish and settle its message", async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let handlerStarted = false;
    let handlerFinished = false;
    await queue.sendMessage(base64("in flight"));
    const trigger = await startTrigger(async () => {
      handlerStarted = true;
      await released;
      handlerFinished = true;
    });
    await waitFor("the handler to start", () => handlerStarted);

    let stopResolved = false;
    const stopping = trigger.stop().then(() => {
      stopResolved = true;
    });
    await sleep(300);
    expect(stopResolved).toBe(false);
    release();
    await stopping;
    expect(handlerFinished).toBe(true);
    expect(await messageCount(queue)).toBe(0);
  });

  it("processes a message a crashed receiver left unsettled once its lock expires (dequeueCount 2)", async () => {
    await queue.sendMessage(base64("left behind"));
    // A host that received the message and died: no delete, no release.
    const received = await queue.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 1 });
    expect(received.receivedMessageItems).toHaveLength(1);
    const dequeueCounts: unknown[] = [];
    await startTrigger(async (_message, context) => {
      dequeueCounts.push(context.triggerMetadata?.dequeueCount);
    });

    await waitFor(
      "the message to be deleted",
      async () => dequeueCounts.length === 1 && (await messageCount(queue)) === 0,
    );
    expect(dequeueCounts).toEqual([2]);
  });

  it("a stop that gives up on a hung handler leaves its message for the next trigger, never deleting it", async () => {
    await queue.sendMessage(base64(JSON.stringify({ hang: true })));
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
    expect(logs.some((entry) => entry.message.includes("1 handler(s) still running"))).toBe(true);

    const recovered: Call[] = [];
    await startTrigger(async (message, context) => {
      recovered.push({ message, context });
    });
    await waitFor(
      "the next trigger to process it",
      async () => recovered.length === 1 && (await messageCount(queue)) === 0,
    );
    expect(recovered[0]?.message).toEqual({ hang: true });
    expect(recovered[0]?.context.triggerMetadata?.dequeueCount).toBe(2);
  });

  it("moves a message that is not valid base64 straight to <queue>-poison, unchanged and unseen by the handler", async () => {
    let calls = 0;
    await queue.sendMessage("not base64 at all!");
    await startTrigger(async () => {
      calls++;
    });

    await waitFor("the poison message", async () => (await peekTexts(poisonQueue)).length === 1);
    await waitFor("the main queue to be empty", async () => (await messageCount(queue)) === 0);
    expect(await peekTexts(poisonQueue)).toEqual(["not base64 at all!"]);
    expect(calls).toBe(0);
    expect(
      logs.some((entry) => entry.level === "warning" && entry.message.includes("is not valid base64")),
    ).toBe(true);
  });

  it("poisons, without running the handler, a message already dequeued more than maxDequeueCount times", async () => {
    const original = base64("crashed the host every time");
    await queue.sendMessage(original);
    // One delivery that never finished (say, the process died): its dequeueCount is now 1.
    await queue.receiveMessages({ numberOfMessages: 1, visibilityTimeout: 1 });
    let calls = 0;
    await startTrigger(
      async () => {
        calls++;
      },
      { settings: queueSettings({ maxDequeueCount: 1 }) },
    );

    await waitFor("the poison message", async () => (await peekTexts(poisonQueue)).length === 1);
    await waitFor("the main queue to be empty", async () => (await messageCount(queue)) === 0);
    expect(await peekTexts(poisonQueue)).toEqual([original]);
    expect(calls).toBe(0);
  });

  it("keeps polling through storage errors: a queue deleted under it comes back and its next message is processed", async () => {
    const messages: unknown[] = [];
    await startTrigger(async (message) => {
      messages.push(message);
    });
    await queue.delete();
    await waitFor("a polling failure to be logged", () =>
      logs.find((entry) => entry.level === "warning" && entry.message.includes("QueueNotFound")),
    );

    await queue.createIfNotExists();
    await queue.sendMessage(base64("after the outage"));
    await waitFor("the message to be processed", () => messages.length === 1);
    expect(messages).toEqual(["after the outage"]);
  });

  it("refuses settings the real host would refuse", async () => {
    await expect(
      startTrigger(async () => {}, { settings: queueSettings({ batchSize: 33 }) }),
    ).rejects.toThrow(/batchSize must be 1\.\.32/);
  });

  it("refuses a storage deadline no timer can keep", async () => {
    for (const storageDeadlineMs of [0, -1, Number.NaN, 2 ** 31, Number.POSITIVE_INFINITY]) {
      await expect(startTrigger(async () => {}, { storageDeadlineMs })).rejects.toThrow(
        /storageDeadlineMs must be 1\.\.2147483647 milliseconds/,
      );
    }
  });
});
