import {
  ServiceBusClient,
  type ServiceBusMessage,
  type ServiceBusReceivedMessage,
  type ServiceBusReceiver,
} from "@azure/service-bus";
import { type Connection, create_container, type EventContext } from "rhea";
import { type RunningServiceBus, startServiceBusStandIn } from "../../dev/stand-ins/service-bus";

// The unmodified @azure/service-bus SDK against the stand-in over AMQP, doing what the service, the
// tests, the bench and `npm run receive` do with it. (AMQPS and Entra ID tokens: identity-stand-ins.test.ts.)
jest.setTimeout(120_000);
let standIn: RunningServiceBus;
let topicCounter = 0;

beforeAll(async () => {
  standIn = await startServiceBusStandIn({ port: 0 });
});

afterAll(async () => {
  await standIn?.close();
});

/** A topic no other test uses, with these subscriptions made. */
function newTopic(...subscriptions: string[]): string {
  const topic = `twin-events-${++topicCounter}`;
  for (const subscription of subscriptions) standIn.ensureSubscription(topic, subscription);
  return topic;
}

/** Runs `use` with a client of its own and closes the client however `use` ends. */
async function withClient<T>(use: (client: ServiceBusClient) => Promise<T>): Promise<T> {
  const client = new ServiceBusClient(standIn.connectionString());
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** Receives until `count` messages arrived (Jest's timeout bounds it), completing each unless told not to. */
async function receive(receiver: ServiceBusReceiver, count: number, complete = true) {
  const received: ServiceBusReceivedMessage[] = [];
  while (received.length < count) {
    const batch = await receiver.receiveMessages(Math.min(1000, count - received.length), {
      maxWaitTimeInMs: 5_000,
    });
    if (complete) for (const message of batch) await receiver.completeMessage(message);
    received.push(...batch);
  }
  return received;
}

function numbered(count: number, prefix: string): ServiceBusMessage[] {
  return Array.from({ length: count }, (_, i) => ({ body: { index: i }, messageId: `${prefix}-${i}` }));
}

/** Sends in ServiceBusMessageBatches, each filled to the link's size. */
async function sendInBatches(client: ServiceBusClient, topic: string, messages: ServiceBusMessage[]) {
  const sender = client.createSender(topic);
  for (let next = 0; next < messages.length; ) {
    const batch = await sender.createMessageBatch();
    while (next < messages.length && batch.tryAddMessage(messages[next] as ServiceBusMessage)) next++;
    await sender.sendMessages(batch);
  }
}

function ids(messages: { messageId?: unknown }[]): string[] {
  return messages.map((message) => String(message.messageId)).sort();
}

/** A plain rhea connection, for what the SDK never does; closed (or dropped) by the caller. */
function rheaConnection(): Connection {
  return create_container().connect({ host: "127.0.0.1", port: standIn.port, reconnect: false });
}

describe("Service Bus stand-in", () => {
  it("delivers a message intact with the broker's properties, and removes it once completed", async () => {
    const topic = newTopic("audit");
    await withClient(async (client) => {
      const sent: ServiceBusMessage = {
        body: { twinId: "thermostat-1", patch: [{ op: "replace", path: "/temperature", value: 21.5 }] },
        contentType: "application/json",
        messageId: "event-1",
        applicationProperties: { "cloudEvents:id": "event-1", attempt: 3, replayed: false },
      };
      await client.createSender(topic).sendMessages(sent);
      await client.createSender(topic).sendMessages({ body: "anonymous" });
      const receiver = client.createReceiver(topic, "audit");

      const [received, anonymous] = await receive(receiver, 2);

      expect(received).toMatchObject({
        body: sent.body,
        contentType: "application/json",
        messageId: "event-1",
        applicationProperties: sent.applicationProperties,
        deliveryCount: 0,
      });
      expect(received?.lockToken).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(received?.sequenceNumber?.toNumber()).toBe(1);
      expect(received?.enqueuedTimeUtc).toBeInstanceOf(Date);
      expect(received?.lockedUntilUtc?.getTime()).toBeGreaterThan(Date.now());
      // A message sent without an id gets one.
      expect(String(anonymous?.messageId)).toMatch(/^[0-9a-f-]{36}$/);
      expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 1_000 })).toEqual([]);
      expect(standIn.topicStats(topic)).toEqual({
        accepted: 2,
        subscriptions: { audit: { active: 0, locked: 0, completed: 2 } },
      });
    });
  });

  it("takes array and batch sends, and feeds one peek-lock receive past rhea's 2048-delivery session window", async () => {
    const topic = newTopic("audit");
    await withClient(async (client) => {
      const sender = client.createSender(topic);
      for (let part = 0; part < 3; part++) await sender.sendMessages(numbered(500, `array-${part}`));
      expect((await sender.createMessageBatch()).maxSizeInBytes).toBe(256 * 1024);
      await sendInBatches(client, topic, numbered(1_500, "batch"));
      const receiver = client.createReceiver(topic, "audit");

      // One receive asking for all 3,000 at once: 2,048 can be in flight unsettled, the rest follow.
      const first = await receiver.receiveMessages(3_000, { maxWaitTimeInMs: 5_000 });
      for (const message of first) await receiver.completeMessage(message);
      const rest = await receive(receiver, 3_000 - first.length);

      expect(first.length).toBeGreaterThan(0);
      const sent = [0, 1, 2].flatMap((part) => numbered(500, `array-${part}`));
      expect(ids([...first, ...rest])).toEqual(ids([...sent, ...numbered(1_500, "batch")]));
      expect(standIn.topicStats(topic).subscriptions.audit).toEqual({
        active: 0,
        locked: 0,
        completed: 3_000,
      });
    });
  });

  it("feeds a receiveAndDelete receiver past 2048 messages, each exactly once, removed as it is sent", async () => {
    const topic = newTopic("audit");
    await withClient(async (client) => {
      await sendInBatches(client, topic, numbered(5_000, "taken"));
      const receiver = client.createReceiver(topic, "audit", { receiveMode: "receiveAndDelete" });

      const received = await receive(receiver, 5_000, false);

      expect(ids(received)).toEqual(ids(numbered(5_000, "taken")));
      expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 1_000 })).toEqual([]);
      expect(standIn.topicStats(topic).subscriptions.audit).toEqual({
        active: 0,
        locked: 0,
        completed: 5_000,
      });
    });
  });

  it("gives every subscription of a topic its own copy; one made later sees nothing sent before it", async () => {
    const topic = newTopic("billing", "Audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(3, "fan"));

      // Subscription names match case-insensitively, as in Service Bus.
      const billing = await receive(client.createReceiver(topic, "billing"), 3);
      const audit = await receive(client.createReceiver(topic, "audit"), 3);
      const late = client.createReceiver(topic, "late");

      expect(ids(billing)).toEqual(["fan-0", "fan-1", "fan-2"]);
      expect(ids(audit)).toEqual(["fan-0", "fan-1", "fan-2"]);
      expect(await late.receiveMessages(5, { maxWaitTimeInMs: 1_000 })).toEqual([]);
      expect(standIn.topicStats(topic).accepted).toBe(3);
    });
  });

  it("feeds a streaming subscribe() receiver and completes what it processed", async () => {
    const topic = newTopic("stream");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(5, "stream"));
      const processed: ServiceBusReceivedMessage[] = [];
      const errors: Error[] = [];

      const subscription = client.createReceiver(topic, "stream").subscribe({
        processMessage: async (message) => {
          processed.push(message);
        },
        processError: async ({ error }) => {
          errors.push(error);
        },
      });
      while (standIn.topicStats(topic).subscriptions.stream?.completed !== 5) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await subscription.close();

      expect(ids(processed)).toEqual(["stream-0", "stream-1", "stream-2", "stream-3", "stream-4"]);
      expect(errors).toEqual([]);
    });
  });

  it("abandons, refuses dead-lettering and deferral, and gives back what a receiver held when it closes or drops", async () => {
    const topic = newTopic("audit");
    await withClient(async (client) => {
      await client.createSender(topic).sendMessages(numbered(3, "held"));
      const first = client.createReceiver(topic, "audit");
      const [abandoned, deadLettered, deferred] = await receive(first, 3, false);
      await first.abandonMessage(abandoned as ServiceBusReceivedMessage);
      await expect(first.deadLetterMessage(deadLettered as ServiceBusReceivedMessage)).rejects.toThrow(
        /does not support dead-lettering/,
      );
      await expect(first.deferMessage(deferred as ServiceBusReceivedMessage)).rejects.toThrow(
        /does not support deferral/,
      );
      expect(ids(await receive(first, 3, false))).toEqual(["held-0", "held-1", "held-2"]);
      await first.close();
    });
    // With plain rhea (the SDK always says goodbye): take three, settle none, destroy the socket.
    const connection = rheaConnection();
    const held: string[] = [];
    await new Promise<void>((resolve) => {
      const receiver = connection.open_receiver({
        source: `${topic}/Subscriptions/audit`,
        autoaccept: false,
        credit_window: 3,
      });
      receiver.on("message", (context: EventContext) => {
        if (held.push(String(context.message?.message_id)) === 3) resolve();
      });
    });
    connection.socket.destroy();

    const again = await withClient((client) => receive(client.createReceiver(topic, "audit"), 3));

    expect(held.sort()).toEqual(["held-0", "held-1", "held-2"]);
    expect(ids(again)).toEqual(["held-0", "held-1", "held-2"]);
    // Each delivery that ended without completion counts: settled, closed, dropped.
    expect(again.map((message) => message.deliveryCount)).toEqual([3, 3, 3]);
  });

  it("answers a drain even when the last credit went to messages", async () => {
    const topic = newTopic("audit");
    await withClient((client) => client.createSender(topic).sendMessages(numbered(3, "drained")));
    const connection = rheaConnection();
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
      await new Promise((resolve) => connection.once("connection_close", resolve).close());
    }
  });

  it("refuses to receive from a topic, and $management, naming what it serves", async () => {
    const topic = newTopic("audit");
    await withClient(async (client) => {
      const served = /serves receiving from <topic>\/Subscriptions\/<name> only, not from/;
      await expect(
        client.createReceiver(topic).receiveMessages(1, { maxWaitTimeInMs: 2_000 }),
      ).rejects.toThrow(served);
      // Peeking goes through the subscription's $management node, which the stand-in leaves out.
      await expect(client.createReceiver(topic, "audit").peekMessages(1)).rejects.toThrow(/\$management/);
    });
  });

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
