import { gzipSync } from "node:zlib";
import { ServiceBusError, type ServiceBusMessage, type ServiceBusMessageBatch } from "@azure/service-bus";
import fc from "fast-check";
import { deadLetterBlobName } from "../../src/delivery/dead-letter-name";
import type { DeadLetterPlace, DeadLetterReason } from "../../src/delivery/dead-letter-writer";
import { type DeliveryCounters, emptyCounters } from "../../src/delivery/delivery-counters";
import type { DeliveryLogger } from "../../src/delivery/delivery-log";
import type { RetryState } from "../../src/delivery/delivery-message";
import { EventsDoNotFit, type PoisonRecord } from "../../src/delivery/delivery-queues";
import type { EndpointSource, WantedVersion } from "../../src/delivery/endpoint-cache";
import type { SenderSource, TopicSender } from "../../src/delivery/endpoint-delivery";
import {
  type DeliveryDependencies,
  type DeliverySettings,
  TwinEventDelivery,
} from "../../src/delivery/twin-event-delivery";
import type { DeliveryEndpoint, ServiceBusTarget } from "../../src/endpoints/delivery-endpoint";
import { type InstancePath, instanceKey } from "../../src/endpoints/endpoint-path";
import type { CloudEvent } from "../../src/events/cloud-event";
import { gzipEvents, MAX_EXPANDED_EVENTS_BYTES } from "../../src/events/compressed-events";
import { eventTraceId } from "../../src/events/trace-context";

// TwinEventDelivery's decisions (deliver, retry, dead-letter, poison, discard) with fakes for every
// dependency: no queue, no broker, no blob store, and a clock that stands still.
const NOW = new Date("2026-11-22T08:00:00.000Z");
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/plant";
const INSTANCE_PATH: InstancePath = {
  subscriptionId: "00000000-0000-0000-0000-000000000001",
  resourceGroupName: "rg",
  instanceName: "plant",
};
const SETTINGS: DeliverySettings = {
  maxAttempts: 3,
  ttlSeconds: 3600,
  backoff: { baseSeconds: 10, capSeconds: 600 },
};
const KEY = "c2VjcmV0LWtleS1uZXZlci1sb2dnZWQ=";
const SIGNATURE = "bmV2ZXItbG9nZ2VkLXNpZw%3D%3D";
const POISON_QUEUE = "twin-events-poison";

function connection(name: string, which: "primary" | "secondary"): string {
  return `Endpoint=sb://${name}.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${KEY}${which};EntityPath=${name}-topic`;
}

function endpoint(name: string, options: { deadLetter?: boolean } = {}): DeliveryEndpoint {
  return {
    id: `${INSTANCE}/endpoints/${name}`,
    name,
    topic: `${name}-topic`,
    sendTo: [
      { connectionString: connection(name, "primary") },
      { connectionString: connection(name, "secondary") },
    ],
    ...(options.deadLetter !== false && {
      deadLetter: {
        sasUrl: `https://acct.blob.core.windows.net/dead-${name}?sv=2022-11-02&sig=${SIGNATURE}`,
      },
    }),
  };
}

function unreadable(name: string): DeliveryEndpoint {
  return {
    id: `${INSTANCE}/endpoints/${name}`,
    name,
    topic: `${name}-topic`,
    unusable: {
      code: "SecretsUnreadable",
      reason:
        "the endpoint's secrets cannot be opened: Stored secrets were sealed with encryption key 0123456789abcdef, which this deployment does not have (current key fedcba9876543210). Configure that key in SECRETS_ENCRYPTION_KEY or SECRETS_ENCRYPTION_PREVIOUS_KEYS.",
    },
  };
}

function event(id: string): CloudEvent {
  return { id, source: "/twins/test", specversion: "1.0", type: "Twin.Update", data: { id } };
}

/** The instance's endpoints, as the EndpointCache would give them. */
class FakeEndpointSource implements EndpointSource {
  readonly endpoints = new Map<string, DeliveryEndpoint[]>();
  lookups = 0;
  readonly wanted: (WantedVersion | undefined)[] = [];
  failure: Error | undefined;

  constructor(endpoints: DeliveryEndpoint[]) {
    this.endpoints.set(instanceKey(INSTANCE_PATH), endpoints);
  }

  async forInstance(instance: InstancePath, wanted?: WantedVersion): Promise<DeliveryEndpoint[]> {
    this.lookups++;
    this.wanted.push(wanted);
    if (this.failure) throw this.failure;
    return this.endpoints.get(instanceKey(instance)) ?? [];
  }
}

/** A broker per connection string: records what each topic was sent, or fails as told. */
class FakeSenders implements SenderSource {
  readonly sent: { connectionString: string; topic: string; ids: string[] }[] = [];
  readonly failing = new Set<string>();
  /** Connection strings whose links cannot even open (no batch can be made on them). */
  readonly unopenable = new Set<string>();
  /** What a send to a connection string (or an identity's namespace) throws, as the broker refuses it. */
  readonly refusals = new Map<string, Error>();
  /** Messages a batch takes (as if by size); messages encoded into batches, in all. */
  batchCapacity = Number.POSITIVE_INFINITY;
  encoded = 0;
  /** Ids the client refuses to add to a batch (it throws, as the SDK does for an id over 128 characters). */
  readonly refusedIds = new Set<string>();

  sender(target: ServiceBusTarget, topic: string): TopicSender {
    const connectionString = "connectionString" in target ? target.connectionString : target.namespace;
    return {
      createMessageBatch: async () => {
        if (this.unopenable.has(connectionString)) throw new Error("the link did not open");
        const messages: ServiceBusMessage[] = [];
        return {
          messages,
          maxSizeInBytes: 256 * 1024,
          get count() {
            return messages.length;
          },
          tryAddMessage: (message: ServiceBusMessage) => {
            if (this.refusedIds.has(String(message.messageId))) {
              throw new Error(
                "Length of 'messageId' property on the message cannot be greater than 128 characters.",
              );
            }
            if (messages.length >= this.batchCapacity) return false;
            this.encoded++;
            return messages.push(message) > 0;
          },
        } as unknown as ServiceBusMessageBatch;
      },
      sendMessages: async (batch) => {
        const refusal = this.refusals.get(connectionString);
        if (refusal) throw refusal;
        if (this.failing.has(connectionString) || this.unopenable.has(connectionString)) {
          // An SDK error may quote what it was given: delivery must not pass the key on.
          throw Object.assign(new Error(`connection refused for ${connectionString}`), {
            name: "ServiceBusError",
          });
        }
        const messages = (batch as unknown as { messages: ServiceBusMessage[] }).messages;
        this.sent.push({
          connectionString,
          topic,
          ids: messages.map((message) => String(message.messageId)),
        });
      },
    };
  }

  /** Both connection strings of the endpoint fail. */
  fail(name: string): void {
    this.failing.add(connection(name, "primary"));
    this.failing.add(connection(name, "secondary"));
  }

  idsSentTo(name: string): string[] {
    return this.sent.filter((send) => send.topic === `${name}-topic`).flatMap((send) => send.ids);
  }
}

class FakeDeadLetterWriter {
  readonly written: { endpoint: string; event: string; why: DeadLetterReason; at: Date }[] = [];
  readonly failingEvents = new Set<string>();

  async write(
    target: DeliveryEndpoint,
    deadEvent: CloudEvent,
    why: DeadLetterReason,
    at: Date,
  ): Promise<DeadLetterPlace> {
    if (this.failingEvents.has(deadEvent.id)) {
      throw new Error(
        `403 AuthorizationFailure for https://acct.blob.core.windows.net/dead-${target.name}/x.json?sv=2022-11-02&sig=${SIGNATURE}`,
      );
    }
    this.written.push({ endpoint: target.name, event: deadEvent.id, why, at });
    return { container: `dead-${target.name}`, blobName: deadLetterBlobName(target.name, deadEvent.id, at) };
  }
}

type RetryHeader = { twinsInstanceId: string; receivedAt?: string; retry?: RetryState };

class FakeQueues {
  readonly poisonQueueName = POISON_QUEUE;
  readonly retries: { message: RetryHeader; ids: string[]; delaySeconds: number }[] = [];
  readonly poisoned: { record: PoisonRecord; ids: string[] }[] = [];
  readonly poisonedMessages: { record: PoisonRecord; original: unknown }[] = [];

  /** Ids no retry message can carry (too large even alone): written are the others, then EventsDoNotFit. */
  readonly unfitIds = new Set<string>();

  async scheduleRetry(message: RetryHeader, events: CloudEvent[], delaySeconds: number): Promise<void> {
    const fit = events.filter((each) => !this.unfitIds.has(each.id));
    if (fit.length > 0) this.retries.push({ message, ids: fit.map((each) => each.id), delaySeconds });
    const unfit = events.filter((each) => this.unfitIds.has(each.id));
    if (unfit.length > 0)
      throw new EventsDoNotFit(unfit.map((each) => ({ event: each, why: "is 70000 bytes of JSON" })));
  }

  async poisonEvents(record: PoisonRecord, events: CloudEvent[]): Promise<void> {
    this.poisoned.push({ record, ids: events.map((each) => each.id) });
  }

  async poisonMessage(record: PoisonRecord, original: unknown): Promise<void> {
    this.poisonedMessages.push({ record, original });
  }
}

class CapturingLogger implements DeliveryLogger {
  readonly lines: { level: "debug" | "log" | "warn" | "error"; line: string }[] = [];
  debug(line: string): void {
    this.lines.push({ level: "debug", line });
  }
  log(line: string): void {
    this.lines.push({ level: "log", line });
  }
  warn(line: string): void {
    this.lines.push({ level: "warn", line });
  }
  error(line: string): void {
    this.lines.push({ level: "error", line });
  }
  matching(prefix: string): string[] {
    return this.lines.filter((entry) => entry.line.startsWith(prefix)).map((entry) => entry.line);
  }
  levelsOf(prefix: string): string[] {
    return [
      ...new Set(this.lines.filter((entry) => entry.line.startsWith(prefix)).map((entry) => entry.level)),
    ];
  }
  text(): string {
    return this.lines.map((entry) => entry.line).join("\n");
  }
}

function setUp(endpoints: DeliveryEndpoint[], settings: DeliverySettings = SETTINGS) {
  const endpointSource = new FakeEndpointSource(endpoints);
  const senders = new FakeSenders();
  const deadLetterWriter = new FakeDeadLetterWriter();
  const deliveryQueues = new FakeQueues();
  const logger = new CapturingLogger();
  const dependencies: DeliveryDependencies = {
    endpointSource,
    senders,
    deadLetterWriter,
    deliveryQueues,
    settings,
    now: () => NOW,
    random: () => 0,
  };
  const delivery = new TwinEventDelivery(dependencies);
  return {
    endpointSource,
    senders,
    deadLetterWriter,
    deliveryQueues,
    logger,
    handle: (message: unknown) => delivery.handle(message, logger),
  };
}

function message(ids: string[], extra: { receivedAt?: string; retry?: RetryState } = {}) {
  return { twinsInstanceId: INSTANCE, events: ids.map(event), ...extra };
}

const RECEIVED_AT = "2026-11-22T07:59:00.000Z";

/** An invocation's counters: the ones given, every other 0. */
function counted(some: Partial<DeliveryCounters>): DeliveryCounters {
  return { ...emptyCounters(), ...some };
}

describe("delivery to every endpoint", () => {
  it("sends every event to each endpoint's topic, in order, and counts them delivered", async () => {
    const kit = setUp([endpoint("a"), endpoint("b")]);
    const counters = await kit.handle(message(["e1", "e2", "e3"], { receivedAt: RECEIVED_AT }));
    expect(counters).toEqual(counted({ delivered: 6 }));
    expect(kit.senders.idsSentTo("a")).toEqual(["e1", "e2", "e3"]);
    expect(kit.senders.idsSentTo("b")).toEqual(["e1", "e2", "e3"]);
    expect(kit.senders.sent.every((send) => send.connectionString.includes("primary"))).toBe(true);
    expect(kit.deliveryQueues.retries).toEqual([]);
    expect(kit.deliveryQueues.poisoned).toEqual([]);
    // One line per endpoint, naming the events' trace ids (derived: these events carry none), at
    // debug: a success is counted by the metrics, and host.json keeps debug out of Application Insights.
    expect(kit.logger.lines.map((entry) => entry.level)).toEqual(["debug", "debug"]);
    const traceIds = ["e1", "e2", "e3"].map((id) => eventTraceId(event(id))).join(",");
    // The endpoints' sends overlap: their lines come in whichever order the sends finish.
    expect(kit.logger.matching("twin events delivered:").sort()).toEqual([
      `twin events delivered: instance="${INSTANCE}" endpoint="a" events=3 traceIds="${traceIds}"`,
      `twin events delivered: instance="${INSTANCE}" endpoint="b" events=3 traceIds="${traceIds}"`,
    ]);
  });

  it("names the event's own trace id in the lines about its retry, dead letter or poisoning", async () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const kit = setUp([endpoint("a"), endpoint("b", { deadLetter: false })]);
    kit.senders.fail("a");
    kit.senders.fail("b");
    const events = [{ ...event("t1"), traceparent }];
    await kit.handle({ twinsInstanceId: INSTANCE, events, receivedAt: RECEIVED_AT });
    const last = (name: string) => ({
      endpointName: name,
      attempt: SETTINGS.maxAttempts - 1,
      lastError: "x",
    });
    await kit.handle({ twinsInstanceId: INSTANCE, events, receivedAt: RECEIVED_AT, retry: last("a") });
    await kit.handle({ twinsInstanceId: INSTANCE, events, receivedAt: RECEIVED_AT, retry: last("b") });
    expect(kit.logger.matching("twin events delivery failed, retry scheduled:")).toHaveLength(2);
    expect(kit.logger.matching("twin event dead-lettered:")).toHaveLength(1);
    expect(kit.logger.matching("twin event poisoned:")).toHaveLength(1);
    expect(kit.logger.lines).toHaveLength(4);
    for (const entry of kit.logger.lines)
      expect(entry.line).toMatch(/traceIds?="0af7651916cd43dd8448eb211c80319c"/);
    // Each failure is a warning or an error, which host.json lets through to Application Insights.
    expect(kit.logger.levelsOf("twin events delivery failed, retry scheduled:")).toEqual(["warn"]);
    expect(kit.logger.levelsOf("twin event dead-lettered:")).toEqual(["warn"]);
    expect(kit.logger.levelsOf("twin event poisoned:")).toEqual(["error"]);
  });

  it("goes to the secondary connection when the primary fails, and counts the event delivered", async () => {
    const kit = setUp([endpoint("a")]);
    kit.senders.failing.add(connection("a", "primary"));
    const counters = await kit.handle(message(["e1"]));
    expect(counters.delivered).toBe(1);
    expect(kit.senders.sent).toEqual([
      { connectionString: connection("a", "secondary"), topic: "a-topic", ids: ["e1"] },
    ]);
    expect(kit.deliveryQueues.retries).toEqual([]);
  });
});

describe("the work shared by an instance's endpoints", () => {
  it("encodes each event once, however many endpoints and batches, and sends each endpoint all of them in order", async () => {
    const { handle, senders } = setUp([endpoint("a"), endpoint("b"), endpoint("c")]);
    senders.batchCapacity = 2;
    const counters = await handle(message(["e1", "e2", "e3", "e4", "e5"]));
    expect(counters.delivered).toBe(15);
    expect(senders.encoded).toBe(5);
    for (const name of ["a", "b", "c"])
      expect(senders.idsSentTo(name)).toEqual(["e1", "e2", "e3", "e4", "e5"]);
  });

  it("makes the batches on another endpoint's link when the first one asked cannot open", async () => {
    const { handle, senders, deliveryQueues } = setUp([endpoint("a"), endpoint("b")]);
    senders.unopenable.add(connection("a", "primary"));
    senders.unopenable.add(connection("a", "secondary"));
    const counters = await handle(message(["e1", "e2"]));
    expect(senders.idsSentTo("b")).toEqual(["e1", "e2"]);
    expect(counters).toMatchObject({ delivered: 2, retried: 2 });
    expect(deliveryQueues.retries.map((retry) => retry.message.retry?.endpointName)).toEqual(["a"]);
  });
});

describe("shared batches under hostile failures", () => {
  it("gives each endpoint a prefix of the events, in order, once, and owes it exactly the rest", async () => {
    const connectionState = fc.constantFrom("ok", "failing", "unopenable");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ primary: connectionState, secondary: connectionState }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 7 }),
        async (states, capacity, count) => {
          const names = states.map((_, index) => `ep${index}`);
          const kit = setUp(names.map((name) => endpoint(name)));
          kit.senders.batchCapacity = capacity;
          for (const [index, state] of states.entries()) {
            for (const which of ["primary", "secondary"] as const) {
              const target = connection(names[index] as string, which);
              if (state[which] === "failing") kit.senders.failing.add(target);
              if (state[which] === "unopenable") kit.senders.unopenable.add(target);
            }
          }
          const ids = Array.from({ length: count }, (_, index) => `e${index}`);
          const counters = await kit.handle(message(ids));
          let delivered = 0;
          for (const [index, state] of states.entries()) {
            const name = names[index] as string;
            const got = kit.senders.idsSentTo(name);
            expect(got).toEqual(ids.slice(0, got.length));
            const reachable = state.primary === "ok" || state.secondary === "ok";
            expect(got.length).toBe(reachable ? count : 0);
            const owed = kit.deliveryQueues.retries.filter(
              (retry) => retry.message.retry?.endpointName === name,
            );
            expect(owed.flatMap((retry) => retry.ids)).toEqual(ids.slice(got.length));
            delivered += got.length;
          }
          expect(counters.delivered).toBe(delivered);
          expect(counters.retried).toBe(count * states.length - delivered);
          // However many endpoints and failovers, each event is encoded once: batches are made
          // on the first link that opens, and never twice at once.
          const opens = states.some(
            (state) => state.primary !== "unopenable" || state.secondary !== "unopenable",
          );
          expect(kit.senders.encoded).toBe(opens ? count : 0);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("one endpoint failing", () => {
  it("schedules a retry for that endpoint alone, with the backoff, and delivers to the others", async () => {
    const kit = setUp([endpoint("a"), endpoint("b"), endpoint("c")]);
    kit.senders.fail("b");
    const counters = await kit.handle(message(["e1", "e2"], { receivedAt: RECEIVED_AT }));
    expect(counters).toEqual(counted({ delivered: 4, retried: 2 }));
    expect(kit.senders.idsSentTo("a")).toEqual(["e1", "e2"]);
    expect(kit.senders.idsSentTo("c")).toEqual(["e1", "e2"]);
    expect(kit.deliveryQueues.retries).toHaveLength(1);
    const [retry] = kit.deliveryQueues.retries;
    expect(retry?.ids).toEqual(["e1", "e2"]);
    expect(retry?.message).toEqual({
      twinsInstanceId: INSTANCE,
      receivedAt: RECEIVED_AT,
      retry: { endpointName: "b", attempt: 1, lastError: expect.stringContaining("ServiceBusError") },
    });
    // Attempt 1 of base 10 s: 10 × 2^0, half fixed and half jitter (0 here).
    expect(retry?.delaySeconds).toBe(5);
    expect(kit.deadLetterWriter.written).toEqual([]);
  });

  it("doubles the backoff with each attempt, up to the cap", async () => {
    const delays: number[] = [];
    for (const attempt of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const kit = setUp([endpoint("b")], { ...SETTINGS, maxAttempts: 100 });
      kit.senders.fail("b");
      await kit.handle(
        message(["e1"], {
          receivedAt: RECEIVED_AT,
          ...(attempt > 1 && { retry: { endpointName: "b", attempt: attempt - 1, lastError: "x" } }),
        }),
      );
      delays.push(kit.deliveryQueues.retries[0]?.delaySeconds ?? -1);
    }
    expect(delays).toEqual([5, 10, 20, 40, 80, 160, 300, 300]);
  });

  it("never schedules a retry past the TTL: the last one comes when it runs out", async () => {
    const kit = setUp([endpoint("b")], { ...SETTINGS, ttlSeconds: 63 });
    kit.senders.fail("b");
    // Received 60 s ago: 3 s of TTL left, less than the 5 s backoff.
    await kit.handle(message(["e1"], { receivedAt: RECEIVED_AT }));
    expect(kit.deliveryQueues.retries[0]?.delaySeconds).toBe(3);
  });

  it("starts the TTL at the first attempt when the producer gave no receivedAt", async () => {
    const kit = setUp([endpoint("b")]);
    kit.senders.fail("b");
    await kit.handle(message(["e1"]));
    expect(kit.deliveryQueues.retries[0]?.message.receivedAt).toBe(NOW.toISOString());
  });
});

describe("a retry message", () => {
  it("for endpoint X goes to X alone, never again to the endpoints that took the events", async () => {
    const kit = setUp([endpoint("x"), endpoint("y")]);
    const counters = await kit.handle(
      message(["e1", "e2"], {
        receivedAt: RECEIVED_AT,
        retry: { endpointName: "X", attempt: 1, lastError: "ServiceBusError: timeout" },
      }),
    );
    expect(counters).toEqual(counted({ delivered: 2 }));
    expect(kit.senders.idsSentTo("x")).toEqual(["e1", "e2"]);
    expect(kit.senders.idsSentTo("y")).toEqual([]);
  });

  it("that fails again is retried for X alone, with the next attempt number", async () => {
    const kit = setUp([endpoint("x"), endpoint("y")]);
    kit.senders.fail("x");
    await kit.handle(
      message(["e1"], {
        receivedAt: RECEIVED_AT,
        retry: { endpointName: "x", attempt: 1, lastError: "ServiceBusError: timeout" },
      }),
    );
    expect(kit.senders.idsSentTo("y")).toEqual([]);
    expect(kit.deliveryQueues.retries.map((retry) => retry.message.retry)).toEqual([
      { endpointName: "x", attempt: 2, lastError: expect.any(String) },
    ]);
    expect(kit.deliveryQueues.retries[0]?.delaySeconds).toBe(10);
  });

  it("for an endpoint deleted since is poisoned as EndpointDeleted, naming it, and sent nowhere", async () => {
    const kit = setUp([endpoint("y")]);
    const counters = await kit.handle(
      message(["e1", "e2"], { retry: { endpointName: "gone", attempt: 3, lastError: "x" } }),
    );
    expect(counters).toEqual(counted({ poisoned: 2 }));
    expect(kit.senders.sent).toEqual([]);
    expect(kit.deliveryQueues.poisoned).toEqual([
      {
        record: expect.objectContaining({ reason: "EndpointDeleted", endpointName: "gone", attempts: 3 }),
        ids: ["e1", "e2"],
      },
    ]);
    expect(kit.logger.matching("twin event poisoned:")).toHaveLength(2);
  });

  it("goes only to the endpoint it was owed to, not to one made anew under its name", async () => {
    const owed = { ...endpoint("x"), createdAt: "2026-11-30T10:00:00.000Z" };
    const kit = setUp([{ ...endpoint("x"), createdAt: "2026-12-01T09:00:00.000Z" }]);
    const retry = { endpointName: "x", attempt: 1, lastError: "x", endpointCreatedAt: owed.createdAt };
    const counters = await kit.handle(message(["e1"], { retry }));
    expect(counters).toEqual(counted({ poisoned: 1 }));
    expect(kit.senders.sent).toEqual([]);
    expect(kit.deliveryQueues.poisoned[0]?.record.reason).toBe("EndpointDeleted");
    // The one it was owed to, still there, gets it; and a retry scheduled now is bound to it.
    const same = setUp([owed]);
    same.senders.fail("x");
    await same.handle(message(["e1"], { retry }));
    expect(same.deliveryQueues.retries[0]?.message.retry?.endpointCreatedAt).toBe(owed.createdAt);
  });
});

describe("an event the client refuses", () => {
  it("is set aside: the others go to every endpoint, and it is dead-lettered at each at once, never retried", async () => {
    const kit = setUp([endpoint("a"), endpoint("b")]);
    kit.senders.refusedIds.add("too-long");
    kit.senders.batchCapacity = 1;
    const counters = await kit.handle(message(["e1", "too-long", "e2"]));
    expect(counters).toEqual(counted({ delivered: 4, deadLettered: 2 }));
    expect(kit.senders.idsSentTo("a")).toEqual(["e1", "e2"]);
    expect(kit.senders.idsSentTo("b")).toEqual(["e1", "e2"]);
    expect(kit.deliveryQueues.retries).toEqual([]);
    expect(
      kit.deadLetterWriter.written
        .map(({ endpoint, event, why }) => ({ endpoint, event, why }))
        .sort((x, y) => x.endpoint.localeCompare(y.endpoint)),
    ).toEqual(
      ["a", "b"].map((name) => ({
        endpoint: name,
        event: "too-long",
        why: { reason: "MessageRefused", attempts: 1, lastError: expect.stringContaining("128 characters") },
      })),
    );
  });

  it("is poisoned at an endpoint without a dead-letter secret, and the others are still delivered", async () => {
    const kit = setUp([endpoint("a", { deadLetter: false })]);
    kit.senders.refusedIds.add("too-long");
    const counters = await kit.handle(message(["too-long", "e1"]));
    expect(counters).toEqual(counted({ delivered: 1, poisoned: 1 }));
    expect(kit.deliveryQueues.poisoned).toEqual([
      { record: expect.objectContaining({ reason: "NoDeadLetterSecret" }), ids: ["too-long"] },
    ]);
  });
});

describe("the endpoint's version", () => {
  it("travels with a retry, and a message that names one asks the source for it", async () => {
    const kit = setUp([{ ...endpoint("a"), version: '"etag-1"' }]);
    kit.senders.fail("a");
    await kit.handle(message(["e1"]));
    expect(kit.deliveryQueues.retries[0]?.message.retry).toMatchObject({
      endpointName: "a",
      endpointVersion: '"etag-1"',
    });
    await kit.handle(
      message(["e1"], {
        retry: { endpointName: "A", attempt: 0, lastError: "x", endpointVersion: '"etag-2"' },
      }),
    );
    expect(kit.endpointSource.wanted).toEqual([undefined, { endpointName: "A", version: '"etag-2"' }]);
  });
});

describe("an event delivery cannot carry", () => {
  it("nesting deeper than ingest allows is sent nowhere and poisoned once, with the reason; the others go to every endpoint", async () => {
    const kit = setUp([endpoint("a"), endpoint("b")]);
    const deep = { ...event("deep"), data: JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`) };
    const counters = await kit.handle({
      twinsInstanceId: INSTANCE,
      events: [event("e1"), deep, event("e2")],
    });
    expect(counters).toEqual(counted({ delivered: 4, poisoned: 1 }));
    expect(kit.senders.idsSentTo("a")).toEqual(["e1", "e2"]);
    expect(kit.senders.idsSentTo("b")).toEqual(["e1", "e2"]);
    expect(kit.deadLetterWriter.written).toEqual([]);
    expect(kit.deliveryQueues.poisoned).toEqual([
      {
        record: {
          reason: "EventTooDeep",
          detail: expect.stringMatching(/deeper than 100 levels/),
          twinsInstanceId: INSTANCE,
        },
        ids: ["deep"],
      },
    ]);
  });

  it("in no retry message, even alone, is dead-lettered at its first failure, saying why; the others are retried", async () => {
    const kit = setUp([endpoint("a"), endpoint("b", { deadLetter: false })]);
    kit.senders.fail("a");
    kit.senders.fail("b");
    kit.deliveryQueues.unfitIds.add("huge");
    const counters = await kit.handle(message(["e1", "huge"], { receivedAt: RECEIVED_AT }));
    expect(counters).toEqual(counted({ retried: 2, deadLettered: 1, poisoned: 1 }));
    expect(kit.deliveryQueues.retries.map((retry) => retry.ids)).toEqual([["e1"], ["e1"]]);
    expect(
      kit.deadLetterWriter.written.map(({ endpoint, event, why }) => ({ endpoint, event, why })),
    ).toEqual([
      {
        endpoint: "a",
        event: "huge",
        why: {
          reason: "MaxDeliveryAttemptsExceeded",
          attempts: 1,
          lastError: expect.stringMatching(
            /ServiceBusError.*; no retry is possible: the event is 70000 bytes of JSON$/,
          ),
        },
      },
    ]);
    expect(kit.deliveryQueues.poisoned).toEqual([
      {
        record: expect.objectContaining({ reason: "NoDeadLetterSecret", endpointName: "b", attempts: 1 }),
        ids: ["huge"],
      },
    ]);
  });
});

describe("an IdentityBased endpoint", () => {
  const NAMESPACE = "contoso.servicebus.windows.net";
  const TEAM =
    "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/team/providers/Microsoft.ManagedIdentity/userAssignedIdentities/sender";
  const identityEndpoint = (name: string): DeliveryEndpoint => {
    const identity = { type: "UserAssigned" as const, userAssignedIdentity: TEAM };
    return {
      id: `${INSTANCE}/endpoints/${name}`,
      name,
      topic: `${name}-topic`,
      sendTo: [{ namespace: NAMESPACE, identity }],
      deadLetter: { url: `https://acct.blob.core.windows.net/dead-${name}`, identity },
    };
  };
  const refused = () =>
    new ServiceBusError(
      "Unauthorized access. 'Send' claim(s) are required to perform this operation.",
      "UnauthorizedAccess",
    );

  it("is delivered to beside KeyBased endpoints, through its namespace", async () => {
    const kit = setUp([identityEndpoint("i"), endpoint("k")]);
    expect(await kit.handle(message(["e1"]))).toEqual(counted({ delivered: 2 }));
    expect(kit.senders.sent.map(({ connectionString, topic }) => [connectionString, topic]).sort()).toEqual([
      [connection("k", "primary"), "k-topic"],
      [NAMESPACE, "i-topic"],
    ]);
  });

  it("has no failover: a refusal is retried, then dead-lettered, naming the identity and the role it lacks", async () => {
    const kit = setUp([identityEndpoint("i"), endpoint("k")]);
    kit.senders.refusals.set(NAMESPACE, refused());
    expect(await kit.handle(message(["e1"], { receivedAt: RECEIVED_AT }))).toEqual(
      counted({ delivered: 1, retried: 1 }),
    );
    const role = `the user-assigned identity ${TEAM} may not send to topic 'i-topic' of ${NAMESPACE}: grant it the Azure Service Bus Data Sender role on the topic`;
    expect(kit.deliveryQueues.retries[0]?.message.retry?.lastError).toContain(role);
    await kit.handle(
      message(["e1"], {
        receivedAt: RECEIVED_AT,
        retry: { endpointName: "i", attempt: SETTINGS.maxAttempts - 1, lastError: "x" },
      }),
    );
    expect(kit.deadLetterWriter.written.map(({ endpoint, why }) => [endpoint, why.lastError])).toEqual([
      ["i", expect.stringContaining(role)],
    ]);
    expect(kit.logger.text()).toContain(role);
  });

  it("that delivery may no longer use is poisoned when its attempts run out, saying why", async () => {
    const unusable: DeliveryEndpoint = {
      id: `${INSTANCE}/endpoints/gone`,
      name: "gone",
      topic: "gone-topic",
      unusable: { code: "SettingsNotAdmitted", reason: "the endpoint's settings are no longer admitted: …" },
    };
    const kit = setUp([unusable]);
    await kit.handle(
      message(["e1"], { retry: { endpointName: "gone", attempt: SETTINGS.maxAttempts - 1, lastError: "x" } }),
    );
    expect(kit.deliveryQueues.poisoned.map(({ record }) => record.reason)).toEqual(["SettingsNotAdmitted"]);
  });
});

describe("running out of attempts or time", () => {
  it("dead-letters what the endpoint did not take after the last attempt, with the reason", async () => {
    const kit = setUp([endpoint("b")]);
    kit.senders.fail("b");
    const counters = await kit.handle(
      message(["e1", "e2"], {
        receivedAt: RECEIVED_AT,
        retry: { endpointName: "b", attempt: SETTINGS.maxAttempts - 1, lastError: "x" },
      }),
    );
    expect(counters).toEqual(counted({ deadLettered: 2 }));
    expect(kit.deliveryQueues.retries).toEqual([]);
    expect(kit.deadLetterWriter.written).toEqual(
      ["e1", "e2"].map((id) => ({
        endpoint: "b",
        event: id,
        why: {
          reason: "MaxDeliveryAttemptsExceeded",
          attempts: SETTINGS.maxAttempts,
          lastError: expect.stringContaining("ServiceBusError"),
        },
        at: NOW,
      })),
    );
  });

  it("dead-letters once the TTL has passed, even on the first attempt", async () => {
    const kit = setUp([endpoint("b")]);
    kit.senders.fail("b");
    const expired = new Date(NOW.getTime() - SETTINGS.ttlSeconds * 1000).toISOString();
    const counters = await kit.handle(message(["e1"], { receivedAt: expired }));
    expect(counters.deadLettered).toBe(1);
    expect(kit.deadLetterWriter.written.map((written) => written.why)).toEqual([
      { reason: "TtlExpired", attempts: 1, lastError: expect.any(String) },
    ]);
    expect(kit.deliveryQueues.retries).toEqual([]);
  });

  it("poisons the events of an endpoint with no dead-letter secret, saying so", async () => {
    const kit = setUp([endpoint("b", { deadLetter: false })]);
    kit.senders.fail("b");
    const counters = await kit.handle(
      message(["e1", "e2"], {
        receivedAt: RECEIVED_AT,
        retry: { endpointName: "b", attempt: SETTINGS.maxAttempts - 1, lastError: "x" },
      }),
    );
    expect(counters).toEqual(counted({ poisoned: 2 }));
    expect(kit.deadLetterWriter.written).toEqual([]);
    expect(kit.deliveryQueues.poisoned).toEqual([
      {
        record: {
          reason: "NoDeadLetterSecret",
          detail: "MaxDeliveryAttemptsExceeded, and the endpoint has no deadLetterStorageSecret",
          twinsInstanceId: INSTANCE,
          endpointName: "b",
          attempts: SETTINGS.maxAttempts,
          lastError: expect.stringContaining("ServiceBusError"),
        },
        ids: ["e1", "e2"],
      },
    ]);
  });

  it("poisons the events whose dead-letter write failed, and dead-letters the rest", async () => {
    const kit = setUp([endpoint("b")]);
    kit.senders.fail("b");
    kit.deadLetterWriter.failingEvents.add("e2");
    const expired = new Date(NOW.getTime() - SETTINGS.ttlSeconds * 1000).toISOString();
    const counters = await kit.handle(message(["e1", "e2", "e3"], { receivedAt: expired }));
    expect(counters).toEqual(counted({ deadLettered: 2, poisoned: 1 }));
    expect(kit.deadLetterWriter.written.map((written) => written.event)).toEqual(["e1", "e3"]);
    expect(kit.deliveryQueues.poisoned).toEqual([
      {
        record: expect.objectContaining({
          reason: "DeadLetterWriteFailed",
          detail: expect.stringMatching(
            /^TtlExpired; the dead-letter write failed: Error: 403 AuthorizationFailure/,
          ),
          endpointName: "b",
          attempts: 1,
        }),
        ids: ["e2"],
      },
    ]);
    expect(JSON.stringify(kit.deliveryQueues.poisoned)).not.toContain(SIGNATURE);
  });
});

describe("an endpoint whose secrets cannot be opened", () => {
  it("holds up only itself: the others deliver, its events are retried with the reason", async () => {
    const kit = setUp([endpoint("a"), unreadable("sealed"), endpoint("c")]);
    const counters = await kit.handle(message(["e1"], { receivedAt: RECEIVED_AT }));
    expect(counters).toEqual(counted({ delivered: 2, retried: 1 }));
    expect(kit.senders.idsSentTo("a")).toEqual(["e1"]);
    expect(kit.senders.idsSentTo("c")).toEqual(["e1"]);
    expect(kit.deliveryQueues.retries.map((retry) => retry.message.retry)).toEqual([
      {
        endpointName: "sealed",
        attempt: 1,
        lastError: expect.stringMatching(
          /^the endpoint's secrets cannot be opened: Stored secrets were sealed/,
        ),
      },
    ]);
    expect(kit.logger.matching("twin events delivery failed, retry scheduled:")[0]).toContain(
      'error="SecretsUnreadable"',
    );
  });

  it("is poisoned when its attempts run out, as it cannot be dead-lettered, with the reason", async () => {
    const kit = setUp([endpoint("a"), unreadable("sealed")]);
    const counters = await kit.handle(
      message(["e1", "e2"], {
        receivedAt: RECEIVED_AT,
        retry: { endpointName: "sealed", attempt: SETTINGS.maxAttempts - 1, lastError: "x" },
      }),
    );
    expect(counters).toEqual(counted({ poisoned: 2 }));
    expect(kit.senders.sent).toEqual([]);
    expect(kit.deadLetterWriter.written).toEqual([]);
    expect(kit.deliveryQueues.poisoned).toEqual([
      {
        record: expect.objectContaining({
          reason: "SecretsUnreadable",
          detail: expect.stringMatching(
            /^MaxDeliveryAttemptsExceeded, and the endpoint's secrets cannot be opened: Stored secrets were sealed with encryption key 0123456789abcdef/,
          ),
          endpointName: "sealed",
          attempts: SETTINGS.maxAttempts,
        }),
        ids: ["e1", "e2"],
      },
    ]);
    expect(kit.logger.matching("twin event poisoned:")).toHaveLength(2);
  });
});

describe("messages delivery cannot place", () => {
  it("discards and counts the events of an instance with no endpoints", async () => {
    const kit = setUp([]);
    const counters = await kit.handle(message(["e1", "e2", "e3"]));
    expect(counters).toEqual(counted({ discarded: 3 }));
    expect(kit.endpointSource.lookups).toBe(1);
    expect(kit.senders.sent).toEqual([]);
    expect(kit.deliveryQueues.retries).toEqual([]);
    expect(kit.deliveryQueues.poisoned).toEqual([]);
  });

  it("poisons a message that is not a twin-events message, whole, without looking up endpoints", async () => {
    const kit = setUp([endpoint("a")]);
    const original = { twinsInstanceId: INSTANCE, events: [] };
    const counters = await kit.handle(original);
    expect(counters.poisoned).toBe(1);
    expect(kit.deliveryQueues.poisonedMessages).toEqual([
      { record: { reason: "InvalidMessage", detail: expect.stringContaining("events") }, original },
    ]);
    expect(kit.endpointSource.lookups).toBe(0);
  });

  it("delivers the events of a compressed message (eventsGzip) as those of a plain one", async () => {
    const kit = setUp([endpoint("a")]);
    const events = [event("z1"), event("z2"), event("z3")];
    const zipped = { twinsInstanceId: INSTANCE, eventsGzip: await gzipEvents(events) };
    const counters = await kit.handle(zipped);
    expect(counters).toEqual(counted({ delivered: 3 }));
    expect(kit.senders.idsSentTo("a")).toEqual(["z1", "z2", "z3"]);
  });

  it.each([
    [
      "both events and eventsGzip",
      async () => ({ events: [event("e1")], eventsGzip: await gzipEvents([]) }),
      "not both",
    ],
    ["eventsGzip that is not a string", async () => ({ eventsGzip: 42 }), "must be a string"],
    [
      "eventsGzip that is not gzip",
      async () => ({ eventsGzip: Buffer.from("plain text").toString("base64") }),
      "not base64 of gzip",
    ],
    [
      "eventsGzip that is not JSON",
      async () => ({ eventsGzip: gzipSync("{not json").toString("base64") }),
      "not expand to JSON",
    ],
    [
      "eventsGzip that expands past the limit",
      async () => ({ eventsGzip: gzipSync(" ".repeat(MAX_EXPANDED_EVENTS_BYTES + 1)).toString("base64") }),
      "expands to more than",
    ],
    [
      "eventsGzip holding an invalid event",
      async () => ({ eventsGzip: gzipSync(JSON.stringify([{ id: "no-source" }])).toString("base64") }),
      "events.0",
    ],
  ])("poisons a message with %s, whole and as it came", async (_, make, detail) => {
    const kit = setUp([endpoint("a")]);
    const original = { twinsInstanceId: INSTANCE, ...(await make()) };
    const counters = await kit.handle(original);
    expect(counters).toEqual(counted({ poisoned: 1 }));
    expect(kit.deliveryQueues.poisonedMessages).toEqual([
      { record: { reason: "InvalidMessage", detail: expect.stringContaining(detail) }, original },
    ]);
    expect(kit.senders.sent).toEqual([]);
  });

  it("poisons the events of a message whose twinsInstanceId is not an instance id", async () => {
    const kit = setUp([endpoint("a")]);
    const counters = await kit.handle({ twinsInstanceId: "/not/an/instance", events: [event("e1")] });
    expect(counters.poisoned).toBe(1);
    expect(kit.deliveryQueues.poisoned[0]?.record.reason).toBe("UnknownInstance");
  });

  it("throws when the endpoints cannot be read, having sent nothing, so the host retries the message", async () => {
    const kit = setUp([endpoint("a")]);
    kit.endpointSource.failure = new Error("ServiceUnavailable");
    await expect(kit.handle(message(["e1"]))).rejects.toThrow("ServiceUnavailable");
    expect(kit.senders.sent).toEqual([]);
    expect(kit.deliveryQueues.retries).toEqual([]);
    expect(kit.deliveryQueues.poisoned).toEqual([]);
  });
});

describe("the log", () => {
  it("has one line per retry scheduled, per event dead-lettered and per event poisoned, and no secret", async () => {
    const kit = setUp([endpoint("retried"), endpoint("dead"), endpoint("poisoned", { deadLetter: false })]);
    for (const name of ["retried", "dead", "poisoned"]) kit.senders.fail(name);
    kit.endpointSource.endpoints.set(instanceKey(INSTANCE_PATH), [endpoint("retried")]);
    await kit.handle(message(["r1", "r2"], { receivedAt: RECEIVED_AT }));
    kit.endpointSource.endpoints.set(instanceKey(INSTANCE_PATH), [
      endpoint("dead"),
      endpoint("poisoned", { deadLetter: false }),
    ]);
    const expired = new Date(NOW.getTime() - SETTINGS.ttlSeconds * 1000).toISOString();
    await kit.handle(message(["d1", "d2", "d3"], { receivedAt: expired }));

    const retried = kit.logger.matching("twin events delivery failed, retry scheduled:");
    expect(retried).toEqual([
      expect.stringContaining(`instance="${INSTANCE}" endpoint="retried" events=2 attempt=1`),
    ]);
    expect(retried[0]).toContain('error="ServiceBusError"');
    expect(retried[0]).toContain(`nextRetryAt="${new Date(NOW.getTime() + 5000).toISOString()}"`);

    const deadLettered = kit.logger.matching("twin event dead-lettered:");
    expect(deadLettered).toHaveLength(3);
    expect(deadLettered[0]).toContain('endpoint="dead" event="d1" reason="TtlExpired" attempts=1');
    expect(deadLettered[0]).toContain(
      `container="dead-dead" blob="${deadLetterBlobName("dead", "d1", NOW)}"`,
    );

    const poisoned = kit.logger.matching("twin event poisoned:");
    expect(poisoned).toHaveLength(3);
    expect(poisoned.map((line) => /event="([^"]+)"/.exec(line)?.[1])).toEqual(["d1", "d2", "d3"]);
    expect(poisoned[0]).toContain(`endpoint="poisoned"`);
    expect(poisoned[0]).toContain(`reason="NoDeadLetterSecret" queue="${POISON_QUEUE}"`);

    // Nothing else is logged; retries and dead letters are warnings, poisoned events errors.
    expect(kit.logger.lines).toHaveLength(7);
    const levels = (prefix: string) =>
      kit.logger.lines.filter((entry) => entry.line.startsWith(prefix)).map((entry) => entry.level);
    expect(levels("twin events delivery failed")).toEqual(["warn"]);
    expect(levels("twin event dead-lettered:")).toEqual(["warn", "warn", "warn"]);
    expect(levels("twin event poisoned:")).toEqual(["error", "error", "error"]);
    const text = kit.logger.text();
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(SIGNATURE);
    expect(text).toContain("SharedAccessKey=***");
  });
});

describe("event routes", () => {
  const only =
    (...ids: string[]) =>
    (each: CloudEvent) =>
      ids.includes(each.id);
  const routed = (name: string, accepts: (each: CloudEvent) => boolean) => ({ ...endpoint(name), accepts });

  it("sends each routed endpoint what its routes let through, every event to the others, and encodes each selection once", async () => {
    const kit = setUp([
      endpoint("all"),
      routed("one", only("e2")),
      routed("same", only("e2")),
      routed("none", only()),
    ]);
    const counters = await kit.handle(message(["e1", "e2", "e3"]));
    expect(counters).toMatchObject({ delivered: 5, unrouted: 0 });
    expect(kit.senders.idsSentTo("all")).toEqual(["e1", "e2", "e3"]);
    expect(kit.senders.idsSentTo("one")).toEqual(["e2"]);
    expect(kit.senders.idsSentTo("same")).toEqual(["e2"]);
    // An endpoint that gets no event is not sent an empty batch.
    expect(kit.senders.idsSentTo("none")).toEqual([]);
    // Three events for every endpoint, one for the two that share a selection.
    expect(kit.senders.encoded).toBe(4);
  });

  it("logs each endpoint's delivery with the trace ids of the events it got, and reuses the batches of every event", async () => {
    const kit = setUp([
      endpoint("all"),
      routed("a", only("e1")),
      routed("b", only("e2")),
      routed("c", only("e1", "e2")),
    ]);
    await kit.handle(message(["e1", "e2"]));
    const delivered = (name: string) =>
      kit.logger.matching("twin events delivered:").find((line) => line.includes(`endpoint="${name}"`));
    expect(delivered("a")).toContain(`traceIds="${eventTraceId(event("e1"))}"`);
    expect(delivered("b")).toContain(`traceIds="${eventTraceId(event("e2"))}"`);
    // "c" gets every event, as "all" does: one encoding of them serves both.
    expect(kit.senders.encoded).toBe(4);
  });

  it("counts and logs (at debug) the events no route lets through, and dead-letters none of them", async () => {
    const kit = setUp([routed("a", only("e1")), routed("b", only("e1", "e2"))]);
    const counters = await kit.handle(message(["e1", "e2", "e3", "e4"]));
    expect(counters).toEqual(counted({ delivered: 3, unrouted: 2 }));
    expect(kit.logger.matching("twin events unrouted:")).toEqual([
      expect.stringMatching(/^twin events unrouted: .* events=2 /),
    ]);
    expect(kit.logger.levelsOf("twin events unrouted:")).toEqual(["debug"]);
    expect(kit.deadLetterWriter.written).toEqual([]);
    expect(kit.deliveryQueues.poisoned).toEqual([]);
  });

  it("retries and dead-letters only what the routes let through to the failing endpoint", async () => {
    const kit = setUp([routed("a", only("e2"))]);
    kit.senders.fail("a");
    await kit.handle(message(["e1", "e2"], { receivedAt: RECEIVED_AT }));
    expect(kit.deliveryQueues.retries.map((retry) => retry.ids)).toEqual([["e2"]]);
  });

  it("sends a retry's events to its endpoint whatever the routes say now: they were let through when first sent", async () => {
    const kit = setUp([routed("a", only())]);
    const retry: RetryState = { endpointName: "a", attempt: 1, lastError: "timeout" };
    const counters = await kit.handle(message(["e1", "e2"], { receivedAt: RECEIVED_AT, retry }));
    expect(counters).toMatchObject({ delivered: 2, unrouted: 0 });
    expect(kit.senders.idsSentTo("a")).toEqual(["e1", "e2"]);
  });
});
