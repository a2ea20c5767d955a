import { z } from "../common/zod";
import type { CloudEvent } from "../events/cloud-event";
import { isCloudEventQuick, isPlainRecord } from "../events/cloud-event-check";
import { twinEventsMessageSchema } from "../events/queue-message";

/**
 * A retry message names the one endpoint still owed the events and how far its delivery got.
 * Only delivery writes it, to the retry messages it schedules on the `twin-events` queue, and
 * dead-letter redelivery, to the events it re-queues.
 */
export const retryStateSchema = z.object({
  endpointName: z.string().min(1),
  /** Attempts made so far; 0 for events redelivered from their dead letters (dead-letter-redelivery.ts). */
  attempt: z.number().int().nonnegative(),
  lastError: z.string(),
  /**
   * The endpoint's version (its document's ETag) the events are owed under: redelivery sets the
   * one it read from the store, and a retry keeps the one it was tried with. Delivery uses its
   * cached endpoints only when they hold that version, else reads them afresh (endpoint-cache.ts),
   * so a redelivered event goes out with the settings of the moment, on whichever host.
   */
  endpointVersion: z.string().min(1).optional(),
  /**
   * When the endpoint the events are owed to was made (delivery-endpoint.ts): a retry goes to that
   * endpoint only, not to one made later under its name; one deleted meanwhile poisons its events
   * as EndpointDeleted. Absent in retries written before it was kept: bound by name alone.
   */
  endpointCreatedAt: z.string().min(1).optional(),
});

/** What the queue function reads: a producer's message (events/queue-message.ts), or a retry of one. */
export const deliveryMessageSchema = twinEventsMessageSchema.extend({
  retry: retryStateSchema.optional(),
});

export type RetryState = z.infer<typeof retryStateSchema>;
export type DeliveryMessage = z.infer<typeof deliveryMessageSchema>;

const envelopeShape = deliveryMessageSchema.shape;

/**
 * deliveryMessageSchema.safeParse, with its verdict and its data, but the events of a message the
 * quick check accepts (cloud-event-check.ts) are the message's own, not zod's copies: one check
 * of hundreds of events per queue message, and none of the garbage. As the schema does, the data
 * holds only the envelope's known fields (in the schema's order). Anything the quick check is not
 * sure of goes to the schema whole, for its verdict and issues.
 */
export function parseDeliveryMessage(message: unknown): ReturnType<typeof deliveryMessageSchema.safeParse> {
  const quick = quickDeliveryMessage(message);
  return quick === undefined ? deliveryMessageSchema.safeParse(message) : { success: true, data: quick };
}

function quickDeliveryMessage(message: unknown): DeliveryMessage | undefined {
  if (!isPlainRecord(message)) return undefined;
  const { twinsInstanceId, events, receivedAt, retry } = message;
  if (typeof twinsInstanceId !== "string" || twinsInstanceId.length === 0) return undefined;
  if (!Array.isArray(events) || events.length === 0) return undefined;
  for (const event of events) if (!isCloudEventQuick(event)) return undefined;
  const result: DeliveryMessage = { twinsInstanceId, events: events as CloudEvent[] };
  if ("receivedAt" in message) {
    const checked = envelopeShape.receivedAt.safeParse(receivedAt);
    if (!checked.success) return undefined;
    result.receivedAt = checked.data;
  }
  if ("retry" in message) {
    const checked = envelopeShape.retry.safeParse(retry);
    if (!checked.success) return undefined;
    result.retry = checked.data;
  }
  return result;
}
