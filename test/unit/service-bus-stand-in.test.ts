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
