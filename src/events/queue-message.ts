import { z } from "../common/zod";
import { type CloudEvent, cloudEventSchema } from "./cloud-event";

/**
 * What producers put on the `twin-events` queue (JSON, base64-encoded as the Functions queue
 * trigger expects): ingest writes it, and so may anyone with access to the queue.
 *
 *   {"twinsInstanceId": "/subscriptions/…/digitalTwinsInstances/<name>", "events": [<CloudEvent>, …]}
 *
 * Delivery reads it, and adds its own retry state to the retry messages it schedules
 * (delivery/delivery-message.ts).
 */
export const twinEventsMessageSchema = z.object({
  twinsInstanceId: z.string().min(1),
  events: z.array(cloudEventSchema).min(1),
  /** When the events were ingested: the delivery TTL counts from here. Producers may omit it. */
  receivedAt: z.iso.datetime({ offset: true }).optional(),
});

export type TwinEventsMessage = z.infer<typeof twinEventsMessageSchema>;

/** A storage queue message is at most 64 KiB of text; base64 makes 3 bytes into 4. */
export const MAX_QUEUE_MESSAGE_BYTES = 64 * 1024;
const MAX_JSON_BYTES = Math.floor((MAX_QUEUE_MESSAGE_BYTES * 3) / 4);
/** Room kept for the envelope around the events (ids, timestamps, retry state). */
const ENVELOPE_RESERVE_BYTES = 2048;
export const MAX_EVENT_BYTES = MAX_JSON_BYTES - ENVELOPE_RESERVE_BYTES;

/**
 * Each event's JSON, made once: ingest measures an event with it and then packs the same text into
 * the queue message. Events are never changed once validated, so the text stays true.
 */
const eventJsonCache = new WeakMap<CloudEvent, string>();

export function eventJson(event: CloudEvent): string {
  let json = eventJsonCache.get(event);
  if (json === undefined) {
    json = JSON.stringify(event);
    eventJsonCache.set(event, json);
  }
  return json;
}

/** Whether the event's JSON has been made already (and so can be: see queue-texts.ts). */
export function hasEventJson(event: CloudEvent): boolean {
  return eventJsonCache.has(event);
}

export function eventBytes(event: CloudEvent): number {
  return Buffer.byteLength(eventJson(event), "utf8");
}

/**
 * Packs events into as few messages as fit under the queue's limit, keeping their order. An event
 * over MAX_EVENT_BYTES gets a message of its own, which may then be over the limit: callers check
 * (events/queue-texts.ts).
 */
export function packEvents<T extends object>(
  envelope: T,
  events: CloudEvent[],
): (T & { events: CloudEvent[] })[] {
  const budget = MAX_JSON_BYTES - Buffer.byteLength(JSON.stringify({ ...envelope, events: [] }), "utf8");
  const messages: (T & { events: CloudEvent[] })[] = [];
  let current: CloudEvent[] = [];
  let used = 0;
  for (const event of events) {
    const size = eventBytes(event) + 1; // and its comma
    if (current.length > 0 && used + size > budget) {
      messages.push({ ...envelope, events: current });
      current = [];
      used = 0;
    }
    current.push(event);
    used += size;
  }
  if (current.length > 0) messages.push({ ...envelope, events: current });
  return messages;
}

export function encodeQueueMessage(message: object): string {
  return Buffer.from(JSON.stringify(message), "utf8").toString("base64");
}

/**
 * packEvents, as the queue messages' texts (base64 of the JSON), each with the events it holds:
 * the same text encodeQueueMessage(packEvents(…)) gives, with each event serialised only once.
 */
export function packEncodedEvents(
  envelope: object,
  events: CloudEvent[],
): { text: string; events: CloudEvent[] }[] {
  // `{…envelope,"events":[]}` without its closing `]}`: the events go in between.
  const head = JSON.stringify({ ...envelope, events: [] }).slice(0, -2);
  return packEvents(envelope, events).map((message) => ({
    text: Buffer.from(`${head}${message.events.map(eventJson).join(",")}]}`, "utf8").toString("base64"),
    events: message.events,
  }));
}
