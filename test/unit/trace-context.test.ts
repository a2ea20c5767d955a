import fc from "fast-check";
import type { CloudEvent } from "../../src/events/cloud-event";
import {
  eventTraceContext,
  eventTraceIds,
  isValidTraceparent,
  newTraceparent,
  requestTraceContext,
  traceIdOf,
  withTraceContext,
} from "../../src/events/trace-context";

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length });
const nonZeroHex = (length: number) => hex(length).filter((value) => /[^0]/.test(value));
const VALID = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const event: CloudEvent = { id: "e1", source: "/s", specversion: "1.0", type: "T", data: { a: 1 } };

describe("traceparent parsing (W3C, version 00)", () => {
  it("accepts every well-formed traceparent and returns its trace id", () => {
    fc.assert(
      fc.property(nonZeroHex(32), nonZeroHex(16), hex(2), (traceId, spanId, flags) => {
        expect(traceIdOf(`00-${traceId}-${spanId}-${flags}`)).toBe(traceId);
      }),
    );
  });

  it("rejects all-zero ids, other versions, uppercase, wrong lengths and non-strings", () => {
    for (const bad of [
      `00-${"0".repeat(32)}-b7ad6b7169203331-01`,
      `00-0af7651916cd43dd8448eb211c80319c-${"0".repeat(16)}-01`,
      VALID.replace(/^00/, "ff"),
      VALID.replace(/^00/, "01"),
      VALID.toUpperCase(),
      `${VALID}-extra`,
      ` ${VALID}`,
      VALID.slice(0, -1),
      "00-abc",
      "",
      42,
      undefined,
      null,
    ]) {
      expect(isValidTraceparent(bad)).toBe(false);
    }
  });

  it("rejects any string that is not exactly the W3C shape", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const shaped = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(value);
        if (!shaped) expect(isValidTraceparent(value)).toBe(false);
      }),
    );
  });

  it("starts new traces: random ids, sampled", () => {
    const made = Array.from({ length: 50 }, () => newTraceparent());
    for (const traceparent of made) expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(new Set(made.map(traceIdOf)).size).toBe(50);
  });
});

describe("trace context of events", () => {
  it("uses the request's headers when valid, else starts a new trace", () => {
    expect(requestTraceContext(VALID, "a=b")).toEqual({ traceparent: VALID, tracestate: "a=b" });
    expect(requestTraceContext(VALID, null)).toEqual({ traceparent: VALID });
    const fresh = requestTraceContext("00-bad", "a=b");
    expect(isValidTraceparent(fresh.traceparent)).toBe(true);
    expect(fresh.traceparent).not.toBe("00-bad");
    expect(fresh).not.toHaveProperty("tracestate");
  });

  it("keeps an event's own valid traceparent; replaces a missing or invalid one, data untouched", () => {
    const request = { traceparent: newTraceparent(), tracestate: "r=1" };
    const own = { ...event, traceparent: VALID, tracestate: "o=1" };
    expect(withTraceContext(own, request)).toBe(own);
    expect(withTraceContext(event, request)).toEqual({ ...event, ...request });
    expect(withTraceContext({ ...event, traceparent: "00-abc", tracestate: "o=1" }, request)).toEqual({
      ...event,
      ...request,
    });
    expect(withTraceContext({ ...event, traceparent: 7 }, { traceparent: VALID })).toEqual({
      ...event,
      traceparent: VALID,
    });
  });

  it("answers each traceparent for itself, asked again or in turns (the last answer is remembered)", () => {
    const other = "00-1af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const asked = [VALID, VALID, "00-abc", VALID, other, other, "", VALID, `${VALID} `, VALID];
    expect(asked.map((value) => traceIdOf(value))).toEqual([
      "0af7651916cd43dd8448eb211c80319c",
      "0af7651916cd43dd8448eb211c80319c",
      undefined,
      "0af7651916cd43dd8448eb211c80319c",
      "1af7651916cd43dd8448eb211c80319c",
      "1af7651916cd43dd8448eb211c80319c",
      undefined,
      "0af7651916cd43dd8448eb211c80319c",
      undefined,
      "0af7651916cd43dd8448eb211c80319c",
    ]);
  });

  it("writes the same queue text whichever way the event is copied (keys, order, a __proto__ key)", () => {
    // The event's JSON goes on the queue as is: the copy must keep every other key, in order, and
    // put the trace context last, whether the event had (invalid) trace attributes or none.
    const slowCopy = (value: CloudEvent, request: { traceparent: string; tracestate?: string }) => {
      const { traceparent: _t, tracestate: _s, ...rest } = value;
      return { ...rest, ...request };
    };
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 5 }),
        fc.constantFrom(undefined, "00-abc", 7),
        fc.constantFrom(undefined, "o=1"),
        fc.constantFrom(undefined, "r=2"),
        (extra, own, ownState, requestState) => {
          const text = `{"__proto__":1,"id":"e","source":"s",${JSON.stringify(extra).slice(1, -1)}${Object.keys(extra).length > 0 ? "," : ""}"specversion":"1.0","type":"t"}`;
          const value = JSON.parse(text) as CloudEvent;
          if (own !== undefined) value.traceparent = own;
          if (ownState !== undefined) value.tracestate = ownState;
          const request =
            requestState === undefined
              ? { traceparent: VALID }
              : { traceparent: VALID, tracestate: requestState };
          expect(JSON.stringify(withTraceContext(value, request))).toBe(
            JSON.stringify(slowCopy(value, request)),
          );
        },
      ),
    );
  });

  it("gives an event without one a stable context at delivery, and lists distinct trace ids", () => {
    expect(eventTraceContext(event)).toEqual(eventTraceContext({ ...event }));
    expect(isValidTraceparent(eventTraceContext(event).traceparent)).toBe(true);
    expect(eventTraceContext({ ...event, traceparent: VALID, tracestate: "x\ny" })).toEqual({
      traceparent: VALID,
    });
    expect(
      eventTraceIds([
        { ...event, traceparent: VALID },
        { ...event, id: "e2", traceparent: VALID },
      ]),
    ).toBe("0af7651916cd43dd8448eb211c80319c");
  });
});
