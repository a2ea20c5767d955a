import type { QueueClient } from "@azure/storage-queue";
import { encodeQueueMessage, MAX_QUEUE_MESSAGE_BYTES } from "../events/queue-message";
import { storageDeadline } from "../store/storage-deadline";
import { deliveryMessageSchema } from "./delivery-message";

/** How long a deferred message stays out of sight: about when a refresh of the references has taken. */
export const SECRETS_PENDING_DEFER_SECONDS = 60;

/** As the service's other writes to its queues: a message owed an outcome never expires. */
const NEVER_EXPIRES = -1;

export interface DeferralOptions {
  /** Why the key is not there (pendingSecretsReason), for the error that ends the deferrals. */
  reason: string;
  /** DELIVERY_TTL_SECONDS: how long after receivedAt a message is still deferred. */
  ttlSeconds: number;
  now: Date;
}

/**
 * While a key setting is pending (src/secrets/secret-keys.ts), delivery can neither open an
 * endpoint's connection strings nor mark a dead letter. Failing the invocation is not enough: the
 * host shows the message again after host.json's visibilityTimeout (10 s) and moves it to the poison
 * queue at the maxDequeueCount-th (5th) failure, within a minute, while a new Key Vault role can take
 * minutes to apply. So the message goes back on the queue as it came (with receivedAt added when
 * it had none), to be seen again in SECRETS_PENDING_DEFER_SECONDS, as a new message whose dequeue
 * count starts again; the invocation then completes and the host deletes the original. The send
 * comes first: if it fails, the invocation fails and the host retries the original, so nothing is lost.
 *
 * Not forever: a message received more than `ttlSeconds` ago, or one that is no twin-events message
 * at all, fails the invocation instead, and after maxDequeueCount the host moves it, whole, to the
 * poison queue (the poisoned-events alert fires; infra/README.md says how to replay it).
 * Returns the delay, in seconds.
 */
export async function deferWhileSecretsPending(
  message: unknown,
  queue: Pick<QueueClient, "sendMessage" | "name">,
  options: DeferralOptions,
): Promise<number> {
  const parsed = deliveryMessageSchema.safeParse(message);
  if (!parsed.success)
    throw new Error(
      `twin events message not deferred (${options.reason}): it is no twin-events message; the host retries it, then moves it to ${queue.name}-poison`,
    );
  const receivedAt = parsed.data.receivedAt;
  if (receivedAt !== undefined && options.now.getTime() - Date.parse(receivedAt) >= options.ttlSeconds * 1000)
    throw new Error(
      `twin events message not deferred (${options.reason}): received at ${receivedAt}, over DELIVERY_TTL_SECONDS ago; the host retries it, then moves it to ${queue.name}-poison`,
    );
  await queue.sendMessage(deferredText(message as object, options.now), {
    visibilityTimeout: SECRETS_PENDING_DEFER_SECONDS,
    messageTimeToLive: NEVER_EXPIRES,
    abortSignal: storageDeadline(),
  });
  return SECRETS_PENDING_DEFER_SECONDS;
}

/** The message as it came, every field kept, with receivedAt so that the TTL bounds its deferrals. */
function deferredText(message: object, now: Date): string {
  const text = encodeQueueMessage(message);
  if ("receivedAt" in message) return text;
  const stamped = encodeQueueMessage({ ...message, receivedAt: now.toISOString() });
  // A message at the size limit goes back as it was, rather than not at all.
  return stamped.length <= MAX_QUEUE_MESSAGE_BYTES ? stamped : text;
}
