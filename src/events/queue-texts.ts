import type { CloudEvent } from "./cloud-event";
import {
  COMPRESS_FROM_BYTES,
  COMPRESS_GROUP_BYTES,
  COMPRESSED_EVENTS_FIELD,
  gzipEvents,
} from "./compressed-events";
import { eventBytes, MAX_QUEUE_MESSAGE_BYTES, packEncodedEvents } from "./queue-message";

/** Consecutive runs of events of at most `budget` bytes of JSON each (one event alone may be more). */
function groups(events: readonly CloudEvent[], budget: number): CloudEvent[][] {
  const result: CloudEvent[][] = [];
  let current: CloudEvent[] = [];
  let used = 0;
  for (const event of events) {
    const size = eventBytes(event) + 1;
    if (current.length > 0 && used + size > budget) {
      result.push(current);
      current = [];
      used = 0;
    }
    current.push(event);
    used += size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

/** One group as compressed messages: halved until each fits; plain where compressing does not pay. */
async function compressedTexts(envelope: object, events: CloudEvent[]): Promise<string[]> {
  const zipped = await gzipEvents(events);
  const plainBytes = events.reduce((sum, event) => sum + eventBytes(event) + 1, 0);
  // Incompressible events (already compressed data_base64, say) go plain: no bigger, no slower.
  if (zipped.length >= plainBytes) return packEncodedEvents(envelope, events);
  const text = Buffer.from(
    JSON.stringify({ ...envelope, [COMPRESSED_EVENTS_FIELD]: zipped }),
    "utf8",
  ).toString("base64");
  if (text.length <= MAX_QUEUE_MESSAGE_BYTES) return [text];
  if (events.length === 1) return packEncodedEvents(envelope, events);
  const half = Math.ceil(events.length / 2);
  const [first, second] = await Promise.all([
    compressedTexts(envelope, events.slice(0, half)),
    compressedTexts(envelope, events.slice(half)),
  ]);
  return [...first, ...second];
}

/**
 * The queue messages' texts for events of one instance, in order, each at most 64 KiB: plain
 * (`events`, packEncodedEvents) when the events' JSON is small, else compressed (`eventsGzip`,
 * compressed-events.ts) in groups of at most COMPRESS_GROUP_BYTES of JSON each.
 */
export async function packQueueTexts(envelope: object, events: CloudEvent[]): Promise<string[]> {
  let total = 0;
  for (const event of events) {
    total += eventBytes(event) + 1;
    if (total >= COMPRESS_FROM_BYTES) break;
  }
  if (total < COMPRESS_FROM_BYTES) return packEncodedEvents(envelope, events);
  const texts = await Promise.all(
    groups(events, COMPRESS_GROUP_BYTES).map((group) => compressedTexts(envelope, group)),
  );
  return texts.flat();
}
