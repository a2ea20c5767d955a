import { z } from "zod";
import { type CloudEvent, cloudEventSchema } from "./cloud-event";

/**
 * What travels on the `twin-events` queue (JSON, base64-encoded as the Functions queue trigger
 * expects). Producers may write the first form directly; the service adds the second for retries.
 *
 *   {"twinsInstanceId": "/subscriptions/…/digitalTwinsInstances/<name>", "events": [<CloudEvent>, …]}
 *
 * A retry message names the one endpoint still owed the events and how far its delivery got.
 */
export const retryStateSchema = z.object({
  endpointName: z.string().min(1),
  attempt: z.number().int().positive(),
  lastError: z.string(),
});

export const twinEventsMessageSchema = z.object({
  twinsInstanceId: z.string().min(1),
  events: z.array(cloudEventSchema).min(1),
  /** When the events were ingested: the delivery TTL counts from here. Producers may omit it. */
  receivedAt: z.iso.datetime({ offset: true }).optional(),
  retry: retryStateSchema.optional(),
});

export type TwinEventsMessage = z.infer<typeof twinEventsMessageSchema>;
export type RetryState = z.infer<typeof retryStateSchema>;

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
