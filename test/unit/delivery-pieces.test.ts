import { describeError } from "../../src/common/describe-error";
import { backoffSeconds } from "../../src/delivery/backoff";
import { logLine } from "../../src/delivery/delivery-log";
import { toServiceBusMessage } from "../../src/delivery/service-bus-message";
import type { CloudEvent } from "../../src/events/cloud-event";

const event: CloudEvent = {
  id: "evt-1",
  source: "/twins/factory",
  specversion: "1.0",
  type: "Microsoft.DigitalTwins.Twin.Update",
  data: { temperature: 21.5 },
};

describe("toServiceBusMessage", () => {
  it("puts data in the body, the id in messageId and the attributes in cloudEvents:* properties", () => {
    expect(toServiceBusMessage(event)).toEqual({
      body: { temperature: 21.5 },
      contentType: "application/json",
      messageId: "evt-1",
      applicationProperties: {
        "cloudEvents:id": "evt-1",
        "cloudEvents:source": "/twins/factory",
        "cloudEvents:specversion": "1.0",
        "cloudEvents:type": "Microsoft.DigitalTwins.Twin.Update",
        // No traceparent of its own (it bypassed ingest): one derived from source and id.
        "Diagnostic-Id": expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/),
        traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/),
      },
    });
    const again = toServiceBusMessage(event).applicationProperties;
    expect(again?.traceparent).toBe(toServiceBusMessage(event).applicationProperties?.["Diagnostic-Id"]);
    expect(again?.traceparent).not.toBe(
      toServiceBusMessage({ ...event, id: "evt-2" }).applicationProperties?.traceparent,
    );
  });

  it("carries the event's traceparent as traceparent and Diagnostic-Id, and its tracestate", () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const message = toServiceBusMessage({ ...event, traceparent, tracestate: "congo=t61rcWkgMzE" });
    expect(message.applicationProperties).toEqual({
      "cloudEvents:id": "evt-1",
      "cloudEvents:source": "/twins/factory",
      "cloudEvents:specversion": "1.0",
      "cloudEvents:type": "Microsoft.DigitalTwins.Twin.Update",
      "Diagnostic-Id": traceparent,
      traceparent,
      tracestate: "congo=t61rcWkgMzE",
    });
    expect(message.body).toEqual({ temperature: 21.5 });
    expect(toServiceBusMessage({ ...event, traceparent }).applicationProperties).not.toHaveProperty(
      "tracestate",
    );
  });

  it("adds time, subject and dataschema when present, and uses datacontenttype", () => {
    const message = toServiceBusMessage({
      ...event,
      time: "2026-11-22T10:00:00Z",
      subject: "twin-7",
      dataschema: "dtmi:example;1",
      datacontenttype: "application/json-patch+json",
    });
    expect(message.contentType).toBe("application/json-patch+json");
    expect(message.applicationProperties).toMatchObject({
      "cloudEvents:time": "2026-11-22T10:00:00Z",
      "cloudEvents:subject": "twin-7",
      "cloudEvents:dataschema": "dtmi:example;1",
    });
  });

  it("sends data_base64 as bytes", () => {
    const { data: _omitted, ...withoutData } = event;
    const message = toServiceBusMessage({
      ...withoutData,
      data_base64: Buffer.from("raw").toString("base64"),
    });
    expect(message.body).toEqual(Buffer.from("raw"));
  });
});

describe("backoffSeconds", () => {
  const policy = { baseSeconds: 10, capSeconds: 300 };

  it("doubles from the base, within equal jitter", () => {
    expect(backoffSeconds(policy, 1, () => 0)).toBe(5);
    expect(backoffSeconds(policy, 1, () => 1)).toBe(10);
    expect(backoffSeconds(policy, 3, () => 1)).toBe(40);
    expect(backoffSeconds(policy, 3, () => 0)).toBe(20);
  });

  it("never exceeds the cap and never goes under one second", () => {
    expect(backoffSeconds(policy, 30, () => 1)).toBe(300);
    expect(backoffSeconds({ baseSeconds: 1, capSeconds: 1 }, 1, () => 0)).toBe(1);
  });
});

describe("logLine", () => {
  it("writes strings JSON-quoted and numbers bare, leaving out undefined fields", () => {
    expect(logLine("twin event dead-lettered:", { event: "evt-1", attempts: 3, container: undefined })).toBe(
      'twin event dead-lettered: event="evt-1" attempts=3',
    );
  });

  it("keeps an id with quotes, spaces or line breaks from breaking the line or forging a field", () => {
    const line = logLine("twin event poisoned:", { event: 'x" reason="Forged\nsecond line', reason: "Real" });
    expect(line).toBe('twin event poisoned: event="x\\" reason=\\"Forged\\nsecond line" reason="Real"');
    expect(line).not.toContain("\n");
  });

  it("masks anything shaped like a secret", () => {
    const line = logLine("x:", { detail: "https://a/b?sv=1&sig=abc%2Fdef and SharedAccessKey=k3y" });
    expect(line).not.toContain("abc%2Fdef");
    expect(line).not.toContain("k3y");
  });
});

describe("describeError", () => {
  it("gives name, code and message on one line, without secrets", () => {
    const error = Object.assign(new Error("connect to sb://x/;SharedAccessKey=abc123 failed\nagain"), {
      code: "ECONNREFUSED",
    });
    const described = describeError(error);
    expect(described).toBe("Error: ECONNREFUSED: connect to sb://x/;SharedAccessKey=*** failed again");
  });

  it("caps the length", () => {
    expect(describeError(new Error("x".repeat(2000))).length).toBeLessThanOrEqual(501);
  });
});
