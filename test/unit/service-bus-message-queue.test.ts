import {
  MessageQueue,
  type QueueConsumer,
  type QueuedMessage,
} from "../../dev/stand-ins/service-bus/message-queue";

const consumer: QueueConsumer = { offer: () => {}, lockEnded: () => {} };

function entry(sequenceNumber: number): QueuedMessage {
  return { message: { body: sequenceNumber }, sequenceNumber, enqueuedAt: new Date(0), deliveryCount: 0 };
}

function queues(maxDeliveryCount = 10, lockDurationMs = 30_000) {
  const deadLetter = new MessageQueue({ lockDurationMs, maxDeliveryCount });
  const active = new MessageQueue({ lockDurationMs, maxDeliveryCount }, deadLetter);
  return { active, deadLetter };
}

describe("MessageQueue", () => {
  afterEach(() => jest.useRealTimers());

  it("keeps sequence order across thousands of takes, a message returned mid-way and peeks", () => {
    const { active } = queues();
    for (let n = 1; n <= 5000; n++) active.enqueue(entry(n));
    const taken = Array.from({ length: 3000 }, () => active.take()?.sequenceNumber);
    expect(taken).toEqual(Array.from({ length: 3000 }, (_, index) => index + 1));
    // A lock on 3001 abandoned after the front was dropped: it comes back first.
    active.lockNext(consumer, "t1");
    active.abandon("t1");
    expect(active.stats()).toMatchObject({ active: 2000, locked: 0, completed: 3000 });
    expect(active.peek(0, 2).map((message) => message.sequenceNumber)).toEqual([3001, 3002]);
    const rest: number[] = [];
    for (let message = active.take(); message !== undefined; message = active.take()) {
      rest.push(message.sequenceNumber);
    }
    expect(rest).toEqual(Array.from({ length: 2000 }, (_, index) => index + 3001));
    active.enqueue(entry(9000));
    expect(active.take()?.sequenceNumber).toBe(9000);
    expect(active.take()).toBeUndefined();
    active.dispose();
  });

  it("puts an abandoned message back in sequence order, its delivery count raised", () => {
    const { active } = queues();
    active.enqueue(entry(1));
    active.enqueue(entry(2));
    active.lockNext(consumer, "t1");

    active.abandon("t1");

    expect(active.lockNext(consumer, "t2")?.entry).toMatchObject({ sequenceNumber: 1, deliveryCount: 1 });
    active.dispose();
  });

  it("dead-letters a message once it reaches the maximum delivery count", () => {
    const { active, deadLetter } = queues(2);
    active.enqueue(entry(1));
    active.lockNext(consumer, "t1");
    active.abandon("t1");
    active.lockNext(consumer, "t2");
    active.abandon("t2");

    expect(active.stats().active).toBe(0);
    const dead = deadLetter.lockNext(consumer, "t3")?.entry;
    expect(dead?.message.application_properties).toMatchObject({
      DeadLetterReason: "MaxDeliveryCountExceeded",
    });
    active.dispose();
    deadLetter.dispose();
  });

  it("returns a message whose lock expired and tells the holder", () => {
    jest.useFakeTimers();
    const ended: string[] = [];
    const { active } = queues(10, 1_000);
    active.enqueue(entry(1));
    active.lockNext({ offer: () => {}, lockEnded: (token, how) => ended.push(`${token}:${how}`) }, "t1");

    jest.advanceTimersByTime(1_001);

    expect(ended).toEqual(["t1:expired"]);
    expect(active.complete("t1")).toBe(false);
    expect(active.lockNext(consumer, "t2")?.entry.deliveryCount).toBe(1);
    active.dispose();
  });

  it("extends a lock on renewal and forgets it on completion", () => {
    jest.useFakeTimers();
    const { active } = queues(10, 1_000);
    active.enqueue(entry(1));
    const lock = active.lockNext(consumer, "t1");

    jest.advanceTimersByTime(600);
    const renewed = active.renew("t1");
    jest.advanceTimersByTime(600);

    expect(renewed?.getTime()).toBeGreaterThan(lock?.lockedUntil.getTime() ?? Number.POSITIVE_INFINITY);
    expect(active.complete("t1")).toBe(true);
    expect(active.renew("t1")).toBeUndefined();
    expect(active.stats()).toEqual({ active: 0, locked: 0, completed: 1 });
    active.dispose();
  });
});
