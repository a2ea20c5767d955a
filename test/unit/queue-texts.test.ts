import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../src/common/json-depth";
import type { CloudEvent } from "../../src/events/cloud-event";
import {
  COMPRESS_FROM_BYTES,
  expandCompressedEvents,
  MAX_EXPANDED_EVENTS_BYTES,
} from "../../src/events/compressed-events";
import { MAX_EVENT_BYTES, MAX_QUEUE_MESSAGE_BYTES } from "../../src/events/queue-message";
import { fitQueueTexts, packQueueTexts } from "../../src/events/queue-texts";

// What ingest puts on the queue: plain messages for a few events, compressed ones (eventsGzip) for
// many, every text under the queue's 64 KiB, every event once and in order, readable by delivery.
const envelope = { twinsInstanceId: "/i/a", receivedAt: "2026-11-25T00:00:00.000Z" };

function event(index: number, data: unknown = { twin: `twin-${index % 7}`, value: index }): CloudEvent {
  return { id: `evt-${index}`, source: "/twins", specversion: "1.0", type: "Twin.Update", data };
}

async function readBack(texts: string[]): Promise<{ kinds: string[]; events: CloudEvent[] }> {
  const kinds: string[] = [];
  const events: CloudEvent[] = [];
  for (const text of texts) {
    expect(text.length).toBeLessThanOrEqual(MAX_QUEUE_MESSAGE_BYTES);
    const message = JSON.parse(Buffer.from(text, "base64").toString("utf8"));
    kinds.push("eventsGzip" in message ? "gzip" : "plain");
    expect(message).toMatchObject(envelope);
    const expanded = await expandCompressedEvents(message);
    if (!expanded.ok) throw new Error(expanded.detail);
    events.push(...(expanded.message as { events: CloudEvent[] }).events);
  }
  return { kinds, events };
}

describe("packQueueTexts", () => {
  it("writes a few events plain, as before", async () => {
    const events = [event(1), event(2)];
    const { kinds, events: back } = await readBack(await packQueueTexts(envelope, events));
    expect(kinds).toEqual(["plain"]);
    expect(back).toEqual(events);
  });

  it("compresses many events into far fewer messages than plain ones would take", async () => {
    const events = Array.from({ length: 2000 }, (_, index) => event(index));
    const texts = await packQueueTexts(envelope, events);
    const { kinds, events: back } = await readBack(texts);
    expect(kinds.every((kind) => kind === "gzip")).toBe(true);
    expect(back).toEqual(events);
    const plainBytes = Buffer.byteLength(JSON.stringify(events));
    expect(texts.length).toBeLessThan(plainBytes / MAX_QUEUE_MESSAGE_BYTES / 2);
  });

  it("writes incompressible events plain, and still under 64 KiB each", async () => {
    const events = Array.from({ length: 12 }, (_, index) =>
      event(index, { noise: randomBytes(20_000).toString("base64") }),
    );
    const { kinds, events: back } = await readBack(await packQueueTexts(envelope, events));
    expect(kinds.every((kind) => kind === "plain")).toBe(true);
    expect(back).toEqual(events);
  });

  it("keeps every event once and in order, whatever the mix of sizes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 }), fc.constant(40_000)), {
          maxLength: 300,
        }),
        fc.boolean(),
        async (sizes, noisy) => {
          const events = sizes.map((size, index) =>
            event(index, noisy ? randomBytes(size * 0.7).toString("base64") : "x".repeat(size)),
          );
          const { events: back } = await readBack(await packQueueTexts(envelope, events));
          expect(back).toEqual(events);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("packs an event of the largest size ingest takes, alone, compressible or not", async () => {
    const overhead = Buffer.byteLength(JSON.stringify(event(0, "")));
    for (const data of ["y".repeat(MAX_EVENT_BYTES - overhead), randomBytes(30_000).toString("base64")]) {
      const events = [event(0, data), event(1, data)];
      const { events: back } = await readBack(await packQueueTexts(envelope, events));
      expect(back).toEqual(events);
    }
  });

  it("compresses from COMPRESS_FROM_BYTES of events and never packs more than delivery expands", () => {
    expect(COMPRESS_FROM_BYTES).toBeLessThan(MAX_QUEUE_MESSAGE_BYTES);
    expect(MAX_EXPANDED_EVENTS_BYTES).toBeGreaterThanOrEqual(256 * 1024);
  });
});

describe("fitQueueTexts (every write of events to a queue: ingest, retries, redelivery, poison records)", () => {
  const deep = (depth: number) => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);

  it("carries a compressible event far over a plain message's size alone, compressed", async () => {
    const large = event(
      1,
      Array.from({ length: 2500 }, (_, index) => ({ sensor: `s-${index % 40}`, at: index })),
    );
    expect(Buffer.byteLength(JSON.stringify(large))).toBeGreaterThan(MAX_QUEUE_MESSAGE_BYTES);
    const { texts, unfit } = await fitQueueTexts(envelope, [event(0), large, event(2)]);
    expect(unfit).toEqual([]);
    const { kinds, events: back } = await readBack(texts);
    expect(kinds).toEqual(["gzip"]);
    expect(back).toEqual([event(0), large, event(2)]);
  });

  it("gives back, with why, an event that fits no message even alone and compressed, and packs the others", async () => {
    const noisy = event(1, randomBytes(60_000).toString("base64"));
    const { texts, unfit } = await fitQueueTexts(envelope, [event(0), noisy, event(2)]);
    expect(unfit).toEqual([
      {
        event: noisy,
        why: expect.stringMatching(
          /^is \d+ bytes of JSON, more than one queue message \(65536 bytes\) holds even compressed$/,
        ),
      },
    ]);
    expect((await readBack(texts)).events).toEqual([event(0), event(2)]);
    await expect(packQueueTexts(envelope, [noisy])).rejects.toThrow(/event evt-1 is \d+ bytes/);
  });

  it("gives back an event nesting deeper than MAX_JSON_DEPTH without making its JSON, and packs the others", async () => {
    const atBound = event(1, deep(MAX_JSON_DEPTH - 1));
    const tooDeep = [event(2, deep(MAX_JSON_DEPTH)), event(3, deep(100_000))];
    const { texts, unfit } = await fitQueueTexts(envelope, [event(0), atBound, ...tooDeep]);
    expect(unfit).toEqual(
      tooDeep.map((each) => ({ event: each, why: expect.stringMatching(/^nests deeper than 100 levels/) })),
    );
    expect((await readBack(texts)).events).toEqual([event(0), atBound]);
  });
});

describe("nestsDeeperThan", () => {
  it("counts containers as strict-json does on text, without recursing", () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan([], 0)).toBe(true);
    expect(nestsDeeperThan([[1]], 2)).toBe(false);
    expect(nestsDeeperThan([[1]], 1)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: null }], c: "x" }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: {} }], c: "x" }, 3)).toBe(true);
    const text = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    expect(nestsDeeperThan(JSON.parse(text(MAX_JSON_DEPTH)))).toBe(false);
    expect(nestsDeeperThan(JSON.parse(text(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(nestsDeeperThan(JSON.parse(text(500_000)))).toBe(true);
  });
});

describe("expandCompressedEvents", () => {
  it("gives a message without eventsGzip back as it is", async () => {
    const message = { twinsInstanceId: "/i/a", events: [event(1)] };
    expect(await expandCompressedEvents(message)).toEqual({ ok: true, message });
    expect(await expandCompressedEvents("text")).toEqual({ ok: true, message: "text" });
    expect(await expandCompressedEvents(null)).toEqual({ ok: true, message: null });
  });
});
