import fc from "fast-check";
import { compileFilter, parseFilter } from "../../src/event-routes/filter";
import { explainFilter } from "../../src/event-routes/filter-explain";
import type { CloudEvent } from "../../src/events/cloud-event";
import { event, printed } from "../support/filter-arbitraries";

// The explaining evaluation of POST …/testEventRouteFilter against delivery's compiled predicate.
const EVENT: CloudEvent = {
  id: "e-1",
  source: "/factory",
  specversion: "1.0",
  type: "Twin.Create",
  subject: "pump-7",
  data: { temperature: 21.5, name: "pump", tags: ["a"], "odd key": "x", flag: true },
};
const explain = (filter: string, on: CloudEvent = EVENT) => explainFilter(parseFilter(filter), on);

describe("the verdict", () => {
  it("is delivery's on generated filters and events, with a reason exactly when false", () => {
    fc.assert(
      fc.property(printed, fc.array(event, { minLength: 1, maxLength: 8 }), ({ text }, events) => {
        const predicate = compileFilter(text);
        const node = parseFilter(text);
        for (const on of events) {
          const verdict = explainFilter(node, on);
          expect({ text, on, matches: verdict.matches }).toEqual({ text, on, matches: predicate(on) });
          if (!verdict.matches) expect(verdict.reason.length).toBeGreaterThan(0);
          else expect(Object.keys(verdict)).toEqual(["matches"]);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("the reason", () => {
  it.each([
    ["type = 'Twin.Update'", "type = 'Twin.Update' was false: the event's type is 'Twin.Create'"],
    ["$body.temperature > 30", "$body.temperature > 30 was false: the event's $body.temperature is 21.5"],
    ["5 > $body.temperature", "$body.temperature < 5 was false: the event's $body.temperature is 21.5"],
    [
      "$body.temperature = '21.5'",
      "$body.temperature = '21.5' was false: the event's $body.temperature is 21.5, not a string (values of different types never compare true)",
    ],
    [
      "$body.missing.deeper = 1",
      "$body.missing.deeper = 1 was false: the event's data has no $body.missing.deeper",
    ],
    ["$body['odd key'] = 'y'", "$body['odd key'] = 'y' was false: the event's $body['odd key'] is 'x'"],
    ["time > '2020'", "time > '2020' was false: the event has no time"],
    [
      "STARTS_WITH($body.tags, 'a')",
      "STARTS_WITH($body.tags, 'a') was false: the event's $body.tags is an array of 1, not a string (STARTS_WITH reads strings only)",
    ],
    [
      "$body.name != null",
      "$body.name != null was false: the event's $body.name is 'pump'; '!=' is never true of null",
    ],
    [
      "$body.flag < true",
      "$body.flag < true was false: the event's $body.flag is true; '<' does not order booleans",
    ],
    ["false", "the filter's constant false is always false"],
  ])("of %s", (filter, reason) => {
    expect(explain(filter)).toEqual({ matches: false, reason });
  });

  it("names the first false operand of AND", () => {
    expect(explain("subject = 'pump-7' AND type = 'A' AND type = 'B'")).toEqual({
      matches: false,
      reason: "type = 'A' was false: the event's type is 'Twin.Create'",
    });
  });

  it("names every alternative of OR", () => {
    expect(explain("type = 'A' OR subject = 'b'")).toEqual({
      matches: false,
      reason:
        "none of the 2 alternatives of OR was true: (1) type = 'A' was false: the event's type is 'Twin.Create'; (2) subject = 'b' was false: the event's subject is 'pump-7'",
    });
  });

  it("names the operand of NOT, which was true", () => {
    expect(explain("NOT subject = 'pump-7'")).toEqual({
      matches: false,
      reason:
        "NOT subject = 'pump-7' was false, since subject = 'pump-7' was true: the event's subject is 'pump-7'",
    });
    expect(explain("NOT (subject = 'pump-7' OR type = 'A')")).toEqual({
      matches: false,
      reason:
        "NOT (subject = 'pump-7' OR type = 'A') was false, since subject = 'pump-7' was true: the event's subject is 'pump-7'",
    });
  });

  it("says when $body has nothing to read, and cuts long values short", () => {
    const base64: CloudEvent = { id: "e", source: "s", specversion: "1.0", type: "t", data_base64: "AA==" };
    expect(explain("$body.a = 1", base64)).toEqual({
      matches: false,
      reason: "$body.a = 1 was false: the event has data_base64, not data, so $body reads nothing",
    });
    const long = explain("subject = 'x'", { ...EVENT, subject: "y".repeat(500) });
    expect(long.matches).toBe(false);
    expect(long.matches === false && long.reason).toBe(
      `subject = 'x' was false: the event's subject is '${"y".repeat(62)}…`,
    );
  });

  it("is absent when the filter lets the event through", () => {
    expect(explain("type = 'Twin.Create' AND (subject = 'x' OR $body.temperature > 20)")).toEqual({
      matches: true,
    });
  });
});
