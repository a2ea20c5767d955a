import { decodeQueueText } from "../../bench/bare-forwarder";
import { serviceFirst, sizedEvents } from "../../bench/delivery";
import { decodeQueueMessage } from "../../dev/queue-trigger";
import { expandCompressedEvents } from "../../src/events/compressed-events";
import { packQueueTexts } from "../../src/events/queue-texts";
import { requestTraceContext, withTraceContext } from "../../src/events/trace-context";

const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-00000000bbbb/resourceGroups/bench/providers/Microsoft.DigitalTwins/digitalTwinsInstances/decode";

// The bare forwarder must read exactly what the service enqueues: the texts of its own encoder
// (packQueueTexts, which ingest's EventPublisher writes), plain and compressed, give back every
// event, in order, as the queue function itself reads them.
describe("the bare forwarder's decoding of the service's queue messages", () => {
  const trace = requestTraceContext(null, null);
  const cases = [
    ["plain (a few small events)", sizedEvents(3, "plain", 300)],
    ["compressed (eventsGzip, several messages)", sizedEvents(400, "zipped", 1024)],
    ["large events", sizedEvents(12, "large", 40 * 1024)],
  ] as const;

  it.each(cases)("%s", async (_, made) => {
    const events = made.map((event) => withTraceContext(event, trace));
    const texts = await packQueueTexts(
      { twinsInstanceId: INSTANCE, receivedAt: new Date().toISOString() },
      events,
    );
    const decoded = texts.map(decodeQueueText);
    expect(decoded.every((message) => message.twinsInstanceId === INSTANCE)).toBe(true);
    expect(decoded.flatMap((message) => message.events)).toEqual(JSON.parse(JSON.stringify(events)));
    const serviceReads = await Promise.all(
      texts.map(async (text) => {
        const decodedText = decodeQueueMessage(text);
        const expanded = await expandCompressedEvents(
          decodedText.ok ? JSON.parse(decodedText.text) : undefined,
        );
        return expanded.ok ? (expanded.message as { events: unknown[] }).events : [];
      }),
    );
    expect(decoded.map((message) => message.events)).toEqual(serviceReads);
  });

  it("is given compressed messages by the bench's 1 KB events", async () => {
    const texts = await packQueueTexts({ twinsInstanceId: INSTANCE }, sizedEvents(100, "one-kb", 1024));
    expect(texts.some((text) => "eventsGzip" in JSON.parse(Buffer.from(text, "base64").toString()))).toBe(
      true,
    );
  });
});

describe("the delivery bench's events and order", () => {
  it("makes events of about the size asked", () => {
    for (const bytes of [1024, 16 * 1024, 64 * 1024]) {
      for (const event of sizedEvents(3, "sized", bytes)) {
        const size = JSON.stringify(event).length;
        expect(size).toBeGreaterThanOrEqual(bytes);
        expect(size).toBeLessThan(bytes + 100);
      }
    }
  });

  it("alternates which path goes first, the service in round 1", () => {
    expect([1, 2, 3, 4].map(serviceFirst)).toEqual([true, false, true, false]);
  });
});
