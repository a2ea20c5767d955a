import { z } from "zod";
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

export function eventBytes(event: CloudEvent): number {
  return Buffer.byteLength(JSON.stringify(event), "utf8");
}

/**
 * Packs events into as few messages as fit under the queue's limit, keeping their order. Every
 * event must already be at most MAX_EVENT_BYTES.
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
