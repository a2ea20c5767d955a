import { z } from "../common/zod";
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
});

/** What the queue function reads: a producer's message (events/queue-message.ts), or a retry of one. */
export const deliveryMessageSchema = twinEventsMessageSchema.extend({
  retry: retryStateSchema.optional(),
});

export type RetryState = z.infer<typeof retryStateSchema>;
export type DeliveryMessage = z.infer<typeof deliveryMessageSchema>;
