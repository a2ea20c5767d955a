import { MAX_JSON_DEPTH, nestsDeeperThan } from "../common/json-depth";
import type { CloudEvent } from "./cloud-event";
import {
  COMPRESS_FROM_BYTES,
  COMPRESS_GROUP_BYTES,
  COMPRESSED_EVENTS_FIELD,
  gzipEvents,
} from "./compressed-events";
import { eventBytes, hasEventJson, MAX_QUEUE_MESSAGE_BYTES, packEncodedEvents } from "./queue-message";

/** An event no queue message can carry, and why (in words that finish "the event …"). */
export interface UnfitEvent {
  event: CloudEvent;
  why: string;
}

/** The texts of queue messages (each at most 64 KiB), and the events none could carry. */
export interface FittedTexts {
  texts: string[];
  unfit: UnfitEvent[];
}

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

function tooLarge(event: CloudEvent): UnfitEvent {
  const why = `is ${eventBytes(event)} bytes of JSON, more than one queue message (${MAX_QUEUE_MESSAGE_BYTES} bytes) holds even compressed`;
  return { event, why };
}

/**
 * Plain messages (packEncodedEvents). An event too large to share a message is packed alone in
 * one, so a text over the limit is one event's, and that event is unfit.
 */
function plainTexts(envelope: object, events: CloudEvent[], unfit: UnfitEvent[]): string[] {
  const texts: string[] = [];
  for (const message of packEncodedEvents(envelope, events)) {
    if (message.text.length <= MAX_QUEUE_MESSAGE_BYTES) texts.push(message.text);
    else unfit.push(...message.events.map(tooLarge));
  }
  return texts;
}

/** One group as compressed messages: halved until each fits; plain where compressing does not pay. */
async function compressedTexts(
  envelope: object,
  events: CloudEvent[],
  unfit: UnfitEvent[],
): Promise<string[]> {
  const zipped = await gzipEvents(events);
  const plainBytes = events.reduce((sum, event) => sum + eventBytes(event) + 1, 0);
  // Incompressible events (already compressed data_base64, say) go plain: no bigger, no slower.
  if (zipped.length >= plainBytes) return plainTexts(envelope, events, unfit);
  const text = Buffer.from(
    JSON.stringify({ ...envelope, [COMPRESSED_EVENTS_FIELD]: zipped }),
    "utf8",
  ).toString("base64");
  if (text.length <= MAX_QUEUE_MESSAGE_BYTES) return [text];
  if (events.length === 1) {
    unfit.push(tooLarge(events[0] as CloudEvent));
    return [];
  }
  const half = Math.ceil(events.length / 2);
  const [first, second] = await Promise.all([
    compressedTexts(envelope, events.slice(0, half), unfit),
    compressedTexts(envelope, events.slice(half), unfit),
  ]);
  return [...first, ...second];
}

/**
 * The one place the service fits events into queue messages, for every write of them (ingest,
 * retries, redelivery, poison records): the texts, in order, each at most 64 KiB, plain (`events`)
 * when the events' JSON is small, else compressed (`eventsGzip`, compressed-events.ts) in groups
 * of at most COMPRESS_GROUP_BYTES of JSON, split further until each fits. An event that fits no
 * message even alone and compressed, or nests deeper than MAX_JSON_DEPTH (its JSON cannot even be
 * made: JSON.stringify recurses), is returned as unfit, with why, for the caller to settle; the
 * rest are still packed. `envelope` is a few hundred bytes at most (ids, times, a reason).
 */
export async function fitQueueTexts(envelope: object, events: readonly CloudEvent[]): Promise<FittedTexts> {
  const unfit: UnfitEvent[] = [];
  const encodable: CloudEvent[] = [];
  for (const event of events) {
    // Ingest made each event's JSON when it measured it: no need to look at those again.
    if (!hasEventJson(event) && nestsDeeperThan(event, MAX_JSON_DEPTH)) {
      unfit.push({ event, why: `nests deeper than ${MAX_JSON_DEPTH} levels, so its JSON cannot be made` });
    } else {
      encodable.push(event);
    }
  }
  let total = 0;
  for (const event of encodable) {
    total += eventBytes(event) + 1;
    if (total >= COMPRESS_FROM_BYTES) break;
  }
  if (total < COMPRESS_FROM_BYTES) return { texts: plainTexts(envelope, encodable, unfit), unfit };
  const texts = await Promise.all(
    groups(encodable, COMPRESS_GROUP_BYTES).map((group) => compressedTexts(envelope, group, unfit)),
  );
  return { texts: texts.flat(), unfit };
}

/**
 * fitQueueTexts for ingest, whose events are checked (at most MAX_EVENT_BYTES, MAX_JSON_DEPTH deep)
 * and so always fit: one that did not would be a fault here, never an event to drop.
 */
export async function packQueueTexts(envelope: object, events: CloudEvent[]): Promise<string[]> {
  const { texts, unfit } = await fitQueueTexts(envelope, events);
  const first = unfit[0];
  if (first !== undefined) throw new Error(`event ${first.event.id} ${first.why}`);
  return texts;
}
