import { type Message, types } from "rhea";
import type { Lock, QueuedMessage } from "./message-queue";

/**
 * The message a receiver gets: the sender's message plus what the broker adds. The SDK reads the
 * sequence number, enqueued time and lock expiry from these annotations and the delivery count
 * from the header; delivery annotations belong to the sender's hop and are dropped.
 */
export function deliveredMessage(lock: Lock): Message {
  return withBrokerAnnotations(lock.entry, { "x-opt-locked-until": lock.lockedUntil });
}

/** The message as `$management` peek returns it, or a receiveAndDelete receiver gets it: no lock. */
export function peekedMessage(entry: QueuedMessage): Message {
  return withBrokerAnnotations(entry, {});
}

function withBrokerAnnotations(entry: QueuedMessage, extra: Record<string, unknown>): Message {
  const { delivery_annotations: _senderHop, ...sent } = entry.message;
  return {
    ...sent,
    delivery_count: entry.deliveryCount,
    message_annotations: {
      ...sent.message_annotations,
      "x-opt-sequence-number": types.wrap_long(entry.sequenceNumber),
      "x-opt-enqueued-time": entry.enqueuedAt,
      ...extra,
    },
  };
}
