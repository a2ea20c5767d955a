import { type QueuedMessage, Subscription } from "../../dev/stand-ins/service-bus/broker";
import { parseLinkAddress } from "../../dev/stand-ins/service-bus/index";

describe("parseLinkAddress", () => {
  it("reads $cbs, topics (slashes and an sb://host/ prefix allowed) and subscriptions in any case", () => {
    expect(parseLinkAddress("$cbs")).toBe("$cbs");
    expect(parseLinkAddress("sb://127.0.0.1:5672/org/twin-events")).toEqual({ topic: "org/twin-events" });
    expect(parseLinkAddress("twin-events/subscriptions/Audit")).toEqual({
      topic: "twin-events",
      subscription: "Audit",
    });
  });

  it("names nothing for what is not served or no entity", () => {
    const unserved = ["t/$management", "t/Subscriptions/s/$DeadLetterQueue", "t/Subscriptions/s/$management"];
    for (const address of [
      undefined,
      "",
      "t/Subscriptions",
      "Subscriptions/s",
      "t//x",
      "$other",
      ...unserved,
    ]) {
      expect(parseLinkAddress(address)).toBeUndefined();
    }
  });
});

describe("Subscription", () => {
  const entry = (sequenceNumber: number): QueuedMessage => ({
    message: { body: sequenceNumber },
    sequenceNumber,
    enqueuedAt: new Date(0),
    deliveryCount: 0,
  });

  it("keeps sequence order across thousands of takes and a message given back mid-way", () => {
    const subscription = new Subscription("s");
    for (let n = 1; n <= 5000; n++) subscription.enqueue(entry(n));
    const taken = Array.from({ length: 3000 }, () => subscription.next(false)?.sequenceNumber);
    expect(taken).toEqual(Array.from({ length: 3000 }, (_, index) => index + 1));
    const locked = [subscription.next(true), subscription.next(true)] as QueuedMessage[];

    subscription.giveBack(locked[1] as QueuedMessage);
    subscription.complete();

    expect(subscription.stats()).toEqual({ active: 1999, locked: 0, completed: 3001 });
    expect(subscription.next(true)).toMatchObject({ sequenceNumber: 3002, deliveryCount: 1 });
    expect(subscription.next(true)?.sequenceNumber).toBe(3003);
  });
});
