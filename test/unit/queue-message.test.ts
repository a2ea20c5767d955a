import { InvalidRequestContent } from "../../src/common/errors";
import type { CloudEvent } from "../../src/events/cloud-event";
import {
  encodeQueueMessage,
  MAX_EVENT_BYTES,
  MAX_QUEUE_MESSAGE_BYTES,
  packEncodedEvents,
  packEvents,
} from "../../src/events/queue-message";
import { validateEvents } from "../../src/http/routes/ingest-routes";
import { thrown } from "../support/thrown";

function makeEvent(index: number, payloadBytes = 100): CloudEvent {
  return {
    id: `e${index}`,
    source: "/s",
    specversion: "1.0",
    type: "t",
    data: { pad: "x".repeat(payloadBytes) },
  };
}

describe("packEvents", () => {
  const envelope = {
    twinsInstanceId:
      "/subscriptions/s/resourceGroups/r/providers/Microsoft.DigitalTwins/digitalTwinsInstances/i",
  };

  it("keeps every message under the 64 KiB queue limit once base64-encoded, and every event in order", () => {
    const events = Array.from({ length: 500 }, (_, index) => makeEvent(index, 700));
    const messages = packEvents(envelope, events);
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages)
      expect(encodeQueueMessage(message).length).toBeLessThanOrEqual(MAX_QUEUE_MESSAGE_BYTES);
    expect(messages.flatMap((message) => message.events)).toEqual(events);
  });

  it("fits an event of the maximum size on its own", () => {
    const big = makeEvent(0, 0);
    const overhead = Buffer.byteLength(JSON.stringify(big));
    const maximal = makeEvent(0, MAX_EVENT_BYTES - overhead);
    expect(Buffer.byteLength(JSON.stringify(maximal))).toBe(MAX_EVENT_BYTES);
    const [message] = packEvents({ ...envelope, receivedAt: new Date().toISOString() }, [maximal]);
    expect(encodeQueueMessage(message as object).length).toBeLessThanOrEqual(MAX_QUEUE_MESSAGE_BYTES);
  });
});

describe("packEncodedEvents", () => {
  it("gives exactly the texts encodeQueueMessage(packEvents(...)) gives, unicode and escapes included", () => {
    const envelope = { twinsInstanceId: '/i/\u00e9"q"', receivedAt: "2026-11-23T00:00:00.000Z" };
    const events = Array.from({ length: 300 }, (_, index) => ({
      ...makeEvent(index, 400),
      subject: index % 2 === 0 ? "k\u212A \ud83d\ude00 \\ \u2028" : "plain",
    }));
    const expected = packEvents(envelope, events).map(encodeQueueMessage);
    expect(expected.length).toBeGreaterThan(1);
    expect(packEncodedEvents(envelope, events).map((message) => message.text)).toEqual(expected);
  });
});

describe("validateEvents", () => {
  it("takes one event or an array", () => {
    expect(validateEvents(makeEvent(1))).toHaveLength(1);
    expect(validateEvents([makeEvent(1), makeEvent(2)])).toHaveLength(2);
  });

  it("keeps extension attributes", () => {
    expect(validateEvents({ ...makeEvent(1), traceparent: "00-abc" })[0]).toHaveProperty(
      "traceparent",
      "00-abc",
    );
  });

  it("gives events the request's trace context unless they have a valid traceparent, counting it in the size", () => {
    const trace = {
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      tracestate: "a=1",
    };
    const own = { ...makeEvent(1), traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
    const [kept, given, replaced] = validateEvents(
      [own, makeEvent(2), { ...makeEvent(3), traceparent: "00-abc" }],
      trace,
    );
    expect(kept).toBe(own);
    expect(given).toEqual({ ...makeEvent(2), ...trace });
    expect(replaced).toEqual({ ...makeEvent(3), ...trace });
    const overhead = Buffer.byteLength(JSON.stringify(makeEvent(0, 0)));
    const maximal = makeEvent(0, MAX_EVENT_BYTES - overhead);
    expect(validateEvents([maximal])).toHaveLength(1);
    const error = thrown(() => validateEvents([maximal], trace)) as InvalidRequestContent;
    expect(error.details[0]).toMatchObject({ code: "EventTooLarge", target: "[0]" });
    expect(error.details[0]?.message).toContain("with the traceparent ingest gives it");
  });

  it("lists every bad event by index and field", () => {
    const error = thrown(() =>
      validateEvents([makeEvent(0), { ...makeEvent(1), specversion: "0.3" }, { source: "/s" }, 42]),
    ) as InvalidRequestContent;
    expect(error).toBeInstanceOf(InvalidRequestContent);
    expect(error.message).toBe("3 of 4 events are invalid; nothing was accepted.");
    expect(error.details.map((detail) => detail.target)).toEqual([
      "[1].specversion",
      "[2].id",
      "[2].specversion",
      "[2].type",
      "[3]",
    ]);
  });

  it("refuses an empty batch and an event over the size limit", () => {
    expect(() => validateEvents([])).toThrow(InvalidRequestContent);
    const error = thrown(() => validateEvents([makeEvent(0, MAX_EVENT_BYTES)])) as InvalidRequestContent;
    expect(error.details[0]).toMatchObject({ code: "EventTooLarge", target: "[0]" });
  });

  it("refuses an event with both data and data_base64 (CloudEvents JSON: mutually exclusive), by index, and takes either alone", () => {
    const bytes = { ...makeEvent(2), data: undefined, data_base64: "AAE=" };
    for (const data of [{ a: 1 }, null, 0, ""]) {
      const error = thrown(() =>
        validateEvents([makeEvent(0), makeEvent(1), { ...bytes, data }]),
      ) as InvalidRequestContent;
      expect(error).toBeInstanceOf(InvalidRequestContent);
      expect(error.message).toBe("1 of 3 events are invalid; nothing was accepted.");
      expect(error.target).toBe("[2]");
      expect(error.details).toEqual([
        {
          code: "MutuallyExclusiveProperties",
          message:
            "Event 2 has both 'data' and 'data_base64': an event carries its payload in one of them, never both (CloudEvents JSON format).",
          target: "[2]",
        },
      ]);
    }
    const { data: _data, ...bytesOnly } = bytes;
    expect(validateEvents([makeEvent(0), bytesOnly])).toEqual([makeEvent(0), bytesOnly]);
  });

  it("refuses a time that is not an RFC 3339 timestamp", () => {
    const error = thrown(() =>
      validateEvents({ ...makeEvent(0), time: "yesterday" }),
    ) as InvalidRequestContent;
    expect(error.details[0]?.target).toBe("[0].time");
  });
});
