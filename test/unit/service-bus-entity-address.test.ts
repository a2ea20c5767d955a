import { formatEntityPath, parseLinkAddress } from "../../dev/stand-ins/service-bus/entity-address";

describe("parseLinkAddress", () => {
  it("reads a topic", () => {
    expect(parseLinkAddress("twin-events")).toEqual({ kind: "topic", topic: "twin-events" });
  });

  it("reads a subscription, whatever the case of 'Subscriptions'", () => {
    expect(parseLinkAddress("twin-events/subscriptions/Audit")).toEqual({
      kind: "subscription",
      topic: "twin-events",
      subscription: "Audit",
      deadLetter: false,
    });
  });

  it("reads a subscription's dead-letter queue", () => {
    expect(parseLinkAddress("twin-events/Subscriptions/audit/$DeadLetterQueue")).toMatchObject({
      deadLetter: true,
    });
  });

  it("reads management nodes and $cbs", () => {
    expect(parseLinkAddress("$cbs")).toEqual({ kind: "cbs" });
    expect(parseLinkAddress("twin-events/Subscriptions/audit/$management")).toEqual({
      kind: "management",
      entity: { kind: "subscription", topic: "twin-events", subscription: "audit", deadLetter: false },
    });
  });

  it("drops an sb://host/ prefix and keeps slashes inside a topic name", () => {
    expect(parseLinkAddress("sb://127.0.0.1:5672/org/twin-events")).toEqual({
      kind: "topic",
      topic: "org/twin-events",
    });
  });

  it("rejects what names no entity", () => {
    for (const address of [undefined, "", "t/Subscriptions", "t/Subscriptions/s/extra", "$other", "t//x"]) {
      expect(parseLinkAddress(address)).toBeUndefined();
    }
  });

  it("spells paths as Service Bus does", () => {
    expect(formatEntityPath({ kind: "subscription", topic: "t", subscription: "s", deadLetter: true })).toBe(
      "t/Subscriptions/s/$DeadLetterQueue",
    );
  });
});
