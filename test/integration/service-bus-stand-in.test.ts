import {
  ServiceBusClient,
  type ServiceBusMessage,
  type ServiceBusReceivedMessage,
  type ServiceBusReceiver,
} from "@azure/service-bus";
import { create_container, type EventContext } from "rhea";
import { type RunningServiceBus, startServiceBusStandIn } from "../../dev/stand-ins/service-bus";

// The unmodified @azure/service-bus SDK against the stand-in, over AMQP on a free port.
const SLOW = 120_000;
let standIn: RunningServiceBus;
let topicCounter = 0;

beforeAll(async () => {
  standIn = await startServiceBusStandIn({ port: 0 });
});

afterAll(async () => {
  await standIn?.close();
});

/** A topic no other test uses. */
function newTopic(): string {
  topicCounter++;
  return `twin-events-${topicCounter}`;
}

/** Runs `use` with a client of its own and closes the client however `use` ends. */
async function withClient<T>(
  use: (client: ServiceBusClient) => Promise<T>,
  connectionString?: string,
): Promise<T> {
  const client = new ServiceBusClient(connectionString ?? standIn.connectionString());
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** Receives until `count` messages arrived (completing each) or the time is up. */
async function receiveAndComplete(
  receiver: ServiceBusReceiver,
  count: number,
): Promise<ServiceBusReceivedMessage[]> {
  const received: ServiceBusReceivedMessage[] = [];
  const deadline = Date.now() + 60_000;
  while (received.length < count && Date.now() < deadline) {
    const batch = await receiver.receiveMessages(Math.min(100, count - received.length), {
      maxWaitTimeInMs: 5_000,
    });
    for (const message of batch) await receiver.completeMessage(message);
    received.push(...batch);
  }
  return received;
}

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function numbered(count: number, prefix: string): ServiceBusMessage[] {
  return Array.from({ length: count }, (_, i) => ({ body: { index: i }, messageId: `${prefix}-${i}` }));
}

function ids(messages: ServiceBusReceivedMessage[]): string[] {
  return messages.map((message) => String(message.messageId)).sort();
}

describe("Service Bus stand-in", () => {
  it("delivers a message with its body, content type, id and application properties intact", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      const sent: ServiceBusMessage = {
        body: { twinId: "thermostat-1", patch: [{ op: "replace", path: "/temperature", value: 21.5 }] },
        contentType: "application/json",
        messageId: "event-1",
        applicationProperties: {
          "cloudEvents:id": "event-1",
          "cloudEvents:source": "https://twins.example/instances/a",
          "cloudEvents:specversion": "1.0",
          "cloudEvents:type": "Microsoft.DigitalTwins.Twin.Update",
          attempt: 3,
          replayed: false,
        },
      };
      const sender = client.createSender(topic);
      await sender.sendMessages(sent);
      const receiver = client.createReceiver(topic, "audit", { receiveMode: "peekLock" });

      const [received] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });

      expect(received?.body).toEqual(sent.body);
      expect(received?.contentType).toBe("application/json");
      expect(received?.messageId).toBe("event-1");
      expect(received?.applicationProperties).toEqual(sent.applicationProperties);
      expect(received?.deliveryCount).toBe(0);
      expect(received?.lockToken).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(received?.sequenceNumber?.toNumber()).toBeGreaterThan(0);
      expect(received?.enqueuedTimeUtc).toBeInstanceOf(Date);
      expect(received?.lockedUntilUtc?.getTime()).toBeGreaterThan(Date.now());
    });
  });

  it("removes a completed message: the next receive finds nothing", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages({ body: "once", messageId: "m-1" });
      const receiver = client.createReceiver(topic, "audit");
      const [received] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });
      if (received === undefined) throw new Error("nothing received");

      await receiver.completeMessage(received);

      expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 })).toEqual([]);
      expect(standIn.topicStats(topic).subscriptions.audit).toEqual({
        active: 0,
        locked: 0,
        completed: 1,
        deadLettered: 0,
      });
    });
  });

  it(
    "delivers every message of an array send exactly once",
    async () => {
      const topic = newTopic();
      standIn.ensureSubscription(topic, "audit");
      await withClient(async (client) => {
        const sent = numbered(500, "array");
        await client.createSender(topic).sendMessages(sent);

        const received = await receiveAndComplete(client.createReceiver(topic, "audit"), 500);

        expect(ids(received)).toEqual(ids(sent as ServiceBusReceivedMessage[]));
        expect(standIn.topicStats(topic).accepted).toBe(500);
      });
    },
    SLOW,
  );

  it(
    "delivers every message of a ServiceBusMessageBatch exactly once",
    async () => {
      const topic = newTopic();
      standIn.ensureSubscription(topic, "audit");
      await withClient(async (client) => {
        const sender = client.createSender(topic);
        const sent = numbered(500, "batch");
        const batch = await sender.createMessageBatch();
        for (const message of sent) expect(batch.tryAddMessage(message)).toBe(true);
        await sender.sendMessages(batch);

        const received = await receiveAndComplete(client.createReceiver(topic, "audit"), 500);

        expect(ids(received)).toEqual(ids(sent as ServiceBusReceivedMessage[]));
        expect(
          await client.createReceiver(topic, "audit").receiveMessages(1, { maxWaitTimeInMs: 1_000 }),
        ).toEqual([]);
      });
    },
    SLOW,
  );

  it(
    "keeps one receiver link delivering past 2048 messages (rhea's session window)",
    async () => {
      const topic = newTopic();
      standIn.ensureSubscription(topic, "audit");
      await withClient(async (client) => {
        const sender = client.createSender(topic);
        for (let part = 0; part < 5; part++) await sender.sendMessages(numbered(500, `bulk-${part}`));

        const received = await receiveAndComplete(client.createReceiver(topic, "audit"), 2500);

        expect(new Set(ids(received)).size).toBe(2500);
      });
    },
    SLOW,
  );

  it(
    "feeds a receiveAndDelete receiver past 2048 messages, each exactly once, without an error",
    async () => {
      const topic = newTopic();
      standIn.ensureSubscription(topic, "audit");
      await withClient(async (client) => {
        const sender = client.createSender(topic);
        const sent = numbered(5_000, "taken");
        let next = 0;
        while (next < sent.length) {
          const batch = await sender.createMessageBatch();
          while (next < sent.length && batch.tryAddMessage(sent[next] as ServiceBusMessage)) next++;
          await sender.sendMessages(batch);
        }
        const receiver = client.createReceiver(topic, "audit", { receiveMode: "receiveAndDelete" });

        const received = await receiveAtLeast(receiver, 5_000, 90_000);

        expect(received).toHaveLength(5_000);
        expect(new Set(ids(received)).size).toBe(5_000);
        expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 1_000 })).toEqual([]);
        expect(standIn.topicStats(topic).subscriptions.audit).toEqual({
          active: 0,
          locked: 0,
          completed: 5_000,
          deadLettered: 0,
        });
      });
    },
    SLOW,
  );

  it(
    "holds back, rather than failing, when a peek-lock receiver's credit exceeds rhea's session window",
    async () => {
      const topic = newTopic();
      standIn.ensureSubscription(topic, "audit");
      await withClient(async (client) => {
        const sender = client.createSender(topic);
        for (let part = 0; part < 6; part++) await sender.sendMessages(numbered(500, `wide-${part}`));
        const receiver = client.createReceiver(topic, "audit");

        // One receive asking for all 3,000 at once: 2,048 can be in flight unsettled, the rest follow.
        const first = await receiver.receiveMessages(3_000, { maxWaitTimeInMs: 5_000 });
        for (const message of first) await receiver.completeMessage(message);
        const rest = await receiveAndComplete(receiver, 3_000 - first.length);

        expect(first.length).toBeGreaterThan(0);
        expect(new Set(ids([...first, ...rest])).size).toBe(3_000);
      });
    },
    SLOW,
  );

  it("gives every subscription of a topic its own copy", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "billing");
    standIn.ensureSubscription(topic, "Audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(3, "fan"));

      // Subscription names match case-insensitively, as in Service Bus.
      const billing = await receiveAndComplete(client.createReceiver(topic, "billing"), 3);
      const audit = await receiveAndComplete(client.createReceiver(topic, "audit"), 3);

      expect(ids(billing)).toEqual(["fan-0", "fan-1", "fan-2"]);
      expect(ids(audit)).toEqual(["fan-0", "fan-1", "fan-2"]);
      expect(billing.map((m) => m.sequenceNumber?.toNumber())).toEqual(
        audit.map((m) => m.sequenceNumber?.toNumber()),
      );
    });
  });

  it("counts messages sent before any subscription existed, and a later subscription does not see them", async () => {
    const topic = newTopic();
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(2, "early"));
      const receiver = client.createReceiver(topic, "late");

      expect(await receiver.receiveMessages(5, { maxWaitTimeInMs: 2_000 })).toEqual([]);
      expect(standIn.topicStats(topic)).toMatchObject({ accepted: 2, unrouted: 2 });
    });
  });

  it("removes a message on receipt in receiveAndDelete mode", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(2, "taken"));
      const receiver = client.createReceiver(topic, "audit", { receiveMode: "receiveAndDelete" });

      const received = await receiveAtLeast(receiver, 2);

      expect(ids(received)).toEqual(["taken-0", "taken-1"]);
      await waitFor(() => standIn.topicStats(topic).subscriptions.audit?.completed === 2);
      expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 1_000 })).toEqual([]);
    });
  });

  it("brings an abandoned message back with its delivery count raised", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages({ body: "retry me", messageId: "abandoned-1" });
      const receiver = client.createReceiver(topic, "audit");
      const [first] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });
      if (first === undefined) throw new Error("nothing received");

      await receiver.abandonMessage(first);
      const [second] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });

      expect(second?.messageId).toBe("abandoned-1");
      expect(second?.deliveryCount).toBe((first.deliveryCount ?? 0) + 1);
      expect(second?.lockToken).not.toBe(first.lockToken);
    });
  });

  it("feeds a streaming subscribe() receiver and completes what it processed", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "stream");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(5, "stream"));
      const receiver = client.createReceiver(topic, "stream");
      const processed: ServiceBusReceivedMessage[] = [];
      const errors: Error[] = [];

      const subscription = receiver.subscribe({
        processMessage: async (message) => {
          processed.push(message);
        },
        processError: async ({ error }) => {
          errors.push(error);
        },
      });
      await waitFor(() => standIn.topicStats(topic).subscriptions.stream?.completed === 5);
      await subscription.close();

      expect(ids(processed)).toEqual(["stream-0", "stream-1", "stream-2", "stream-3", "stream-4"]);
      expect(errors).toEqual([]);
    });
  });

  it("returns the unsettled messages of a receiver that closes", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(3, "held"));
      const first = client.createReceiver(topic, "audit");
      const held = await receiveAtLeast(first, 3);

      await first.close();
      const again = await receiveAndComplete(client.createReceiver(topic, "audit"), 3);

      expect(ids(held)).toEqual(["held-0", "held-1", "held-2"]);
      expect(ids(again)).toEqual(["held-0", "held-1", "held-2"]);
      expect(again.every((message) => message.deliveryCount === 1)).toBe(true);
    });
  });

  it("renews a lock and peeks through $management", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(2, "mgmt"));
      const receiver = client.createReceiver(topic, "audit");

      const peeked = await receiver.peekMessages(10);
      const [locked] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });
      if (locked?.lockedUntilUtc === undefined) throw new Error("nothing received");
      const before = locked.lockedUntilUtc.getTime();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const renewed = await receiver.renewMessageLock(locked);

      expect(ids(peeked)).toEqual(["mgmt-0", "mgmt-1"]);
      expect(renewed.getTime()).toBeGreaterThan(before);
      await receiver.completeMessage(locked);
    });
  });

  it("moves a dead-lettered message to the subscription's dead-letter queue with its reason", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages({ body: "poison", messageId: "dead-1" });
      const receiver = client.createReceiver(topic, "audit");
      const [received] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });
      if (received === undefined) throw new Error("nothing received");

      await receiver.deadLetterMessage(received, {
        deadLetterReason: "BadShape",
        deadLetterErrorDescription: "no id",
      });
      const deadLetters = client.createReceiver(topic, "audit", { subQueueType: "deadLetter" });
      const [dead] = await receiveAndComplete(deadLetters, 1);

      expect(dead?.messageId).toBe("dead-1");
      expect(dead?.deadLetterReason).toBe("BadShape");
      expect(dead?.deadLetterErrorDescription).toBe("no id");
    });
  });

  it("refuses to defer, leaving the message to be received again", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages({ body: "later", messageId: "deferred-1" });
      const receiver = client.createReceiver(topic, "audit");
      const [received] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });
      if (received === undefined) throw new Error("nothing received");

      await expect(receiver.deferMessage(received)).rejects.toThrow(/does not support deferral/);
      const [again] = await receiveAndComplete(receiver, 1);

      expect(again?.messageId).toBe("deferred-1");
    });
  });

  it("gives a message sent without an id one", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages({ body: "anonymous" });
      const [received] = await receiveAndComplete(client.createReceiver(topic, "audit"), 1);

      expect(typeof received?.messageId).toBe("string");
      expect(String(received?.messageId)).not.toBe("");
    });
  });

  it(
    "shares a subscription between competing receivers on separate connections, each message once",
    async () => {
      const topic = newTopic();
      standIn.ensureSubscription(topic, "workers");
      await withClient(async (producer) => {
        await producer.createSender(topic).sendMessages(numbered(200, "work"));
        const [first, second] = await Promise.all([
          withClient((client) => drain(client.createReceiver(topic, "workers"))),
          withClient((client) => drain(client.createReceiver(topic, "workers"))),
        ]);

        expect(ids([...first, ...second])).toEqual(ids(numbered(200, "work") as ServiceBusReceivedMessage[]));
      });
    },
    SLOW,
  );

  it("returns what a client held when its connection drops without a goodbye", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(3, "dropped"));
    });
    const held = await holdThenDropConnection(standIn.port, `${topic}/Subscriptions/audit`, 3);

    const again = await withClient((client) => receiveAndComplete(client.createReceiver(topic, "audit"), 3));

    expect(held.sort()).toEqual(["dropped-0", "dropped-1", "dropped-2"]);
    expect(ids(again)).toEqual(["dropped-0", "dropped-1", "dropped-2"]);
  });

  it("answers a drain even when the last credit went to messages", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(3, "drained"));
    });
    const connection = create_container().connect({
      host: "127.0.0.1",
      port: standIn.port,
      reconnect: false,
    });
    try {
      const received: unknown[] = [];
      await new Promise<void>((resolve) => {
        const receiver = connection.open_receiver({
          source: `${topic}/Subscriptions/audit`,
          autoaccept: false,
          credit_window: 0,
        });
        receiver.on("message", (context: EventContext) => received.push(context.message?.message_id));
        // Without an answer here the SDK's receiveMessages times out and closes its link.
        receiver.on("receiver_drained", () => resolve());
        receiver.once("receiver_open", () => {
          // One flow frame: three credits, and drain them.
          receiver.add_credit(3);
          receiver.drain_credit();
        });
      });

      expect(received).toHaveLength(3);
    } finally {
      await new Promise<void>((resolve) => {
        connection.once("connection_close", () => resolve());
        connection.close();
      });
    }
  });

  it("sends pre-settled to a link attached with sender settle mode settled, removing each message as it goes", async () => {
    const topic = newTopic();
    standIn.ensureSubscription(topic, "audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(3, "presettled"));
    });
    const connection = create_container().connect({
      host: "127.0.0.1",
      port: standIn.port,
      reconnect: false,
    });
    try {
      const settledOnArrival: boolean[] = [];
      await new Promise<void>((resolve) => {
        // As the SDK attaches in receiveAndDelete mode; this receiver never sends a disposition.
        const receiver = connection.open_receiver({
          source: `${topic}/Subscriptions/audit`,
          snd_settle_mode: 1,
          rcv_settle_mode: 0,
          autoaccept: false,
          credit_window: 10,
        });
        receiver.on("message", (context: EventContext) => {
          settledOnArrival.push(context.delivery?.remote_settled === true);
          if (settledOnArrival.length === 3) resolve();
        });
      });

      expect(settledOnArrival).toEqual([true, true, true]);
      expect(standIn.topicStats(topic).subscriptions.audit).toMatchObject({
        active: 0,
        locked: 0,
        completed: 3,
      });
    } finally {
      await new Promise<void>((resolve) => {
        connection.once("connection_close", () => resolve());
        connection.close();
      });
    }
  });

  it("refuses to receive from a topic address, pointing at subscriptions", async () => {
    const topic = newTopic();
    await withClient(async (client) => {
      const receiver = client.createReceiver(topic, { receiveMode: "peekLock" });
      await expect(receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 })).rejects.toThrow(/Subscriptions/);
    });
  });
});

describe("Service Bus stand-in shutting down", () => {
  it("closes while clients are still connected, and the clients can still close afterwards", async () => {
    const doomed = await startServiceBusStandIn({ port: 0 });
    const client = new ServiceBusClient(doomed.connectionString());
    try {
      doomed.ensureSubscription("doomed", "audit");
      await client.createSender("doomed").sendMessages({ body: "last words" });
      await client.createReceiver("doomed", "audit").receiveMessages(1, { maxWaitTimeInMs: 20_000 });

      await doomed.close();

      expect(doomed.topicStats("doomed").accepted).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe("Service Bus stand-in with a short lock", () => {
  let shortLock: RunningServiceBus;

  beforeAll(async () => {
    shortLock = await startServiceBusStandIn({ port: 0, lockDurationMs: 1_500 });
  });

  afterAll(async () => {
    await shortLock?.close();
  });

  it("makes a message available again when its lock expires", async () => {
    shortLock.ensureSubscription("expiring", "audit");
    await withClient(async (client) => {
      await client.createSender("expiring").sendMessages({ body: "slow", messageId: "slow-1" });
      // No automatic lock renewal: the lock must be allowed to run out.
      const receiver = client.createReceiver("expiring", "audit", { maxAutoLockRenewalDurationInMs: 0 });
      const [first] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });
      if (first === undefined) throw new Error("nothing received");

      const [again] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 20_000 });

      expect(again?.messageId).toBe("slow-1");
      expect(again?.deliveryCount).toBe(1);
      await expect(receiver.completeMessage(first)).rejects.toThrow(/lock/i);
      await receiver.completeMessage(again as ServiceBusReceivedMessage);
    }, shortLock.connectionString());
  });
});

/** Receives and completes until a receive comes back empty. */
async function drain(receiver: ServiceBusReceiver): Promise<ServiceBusReceivedMessage[]> {
  const received: ServiceBusReceivedMessage[] = [];
  for (;;) {
    const batch = await receiver.receiveMessages(20, { maxWaitTimeInMs: 2_000 });
    if (batch.length === 0) return received;
    for (const message of batch) await receiver.completeMessage(message);
    received.push(...batch);
  }
}

/**
 * With plain rhea (the SDK always says goodbye): receives `count` messages without settling them,
 * then destroys the socket. Returns the message ids it held.
 */
async function holdThenDropConnection(port: number, address: string, count: number): Promise<string[]> {
  const connection = create_container().connect({ host: "127.0.0.1", port, reconnect: false });
  const held: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const receiver = connection.open_receiver({ source: address, autoaccept: false, credit_window: count });
    receiver.on("message", (context: EventContext) => {
      held.push(String(context.message?.message_id));
      if (held.length === count) resolve();
    });
    connection.on("connection_error", (context: EventContext) => reject(context.error));
  });
  // Only the server's side matters here; this client is abandoned with its socket.
  connection.socket.destroy();
  return held;
}

/** Receives (without settling) until at least `count` messages arrived. */
async function receiveAtLeast(
  receiver: ServiceBusReceiver,
  count: number,
  timeoutMs = 60_000,
): Promise<ServiceBusReceivedMessage[]> {
  const received: ServiceBusReceivedMessage[] = [];
  const deadline = Date.now() + timeoutMs;
  while (received.length < count && Date.now() < deadline) {
    received.push(...(await receiver.receiveMessages(count - received.length, { maxWaitTimeInMs: 5_000 })));
  }
  return received;
}
