import type { QueueClient } from "@azure/storage-queue";
import type { CloudEvent } from "../events/cloud-event";
import { encodeQueueMessage, MAX_QUEUE_MESSAGE_BYTES, packEvents } from "../events/queue-message";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../store/storage-deadline";
import type { DeliveryMessage } from "./delivery-message";

export type PoisonReason =
  | "NoDeadLetterSecret"
  | "SecretsUnreadable"
  | "DeadLetterWriteFailed"
  | "InvalidMessage"
  | "UnknownInstance";

/** What the service writes to the poison queue (the host also moves failed originals there). */
export interface PoisonRecord {
  reason: PoisonReason;
  detail: string;
  twinsInstanceId?: string;
  endpointName?: string;
  attempts?: number;
  lastError?: string;
}

/** Never expire: a message the service writes is owed an outcome, however long it waits. */
const NEVER_EXPIRES = -1;

/**
 * The service's own writes to its queues: retries scheduled with a visibility delay (the backoff)
 * on the main queue, and records on the poison queue. Both queues are created once per process.
 * Each call has a deadline (storage-deadline.ts): a write the service does not answer fails, and
 * the delivery that needed it fails with it, so its queue message is tried again.
 */
export class DeliveryQueues {
  private readonly ready = new Map<QueueClient, Promise<unknown>>();

  constructor(
    private readonly main: QueueClient,
    private readonly poisonQueue: QueueClient,
    private readonly deadlineMs: number = STORAGE_CALL_DEADLINE_MS,
  ) {}

  /** Where poisoned events go, for logs. */
  get poisonQueueName(): string {
    return this.poisonQueue.name;
  }

  async scheduleRetry(message: Omit<DeliveryMessage, "events">, events: CloudEvent[], delaySeconds: number) {
    for (const part of packEvents(message, events)) {
      await this.send(this.main, part, delaySeconds);
    }
  }

  async poisonEvents(record: PoisonRecord, events: CloudEvent[]): Promise<void> {
    for (const part of packEvents({ ...record, poisonedAt: new Date().toISOString() }, events)) {
      await this.send(this.poisonQueue, part, 0);
    }
  }

  /** A message that is not a twin-events message at all: kept whole when it fits, else its start. */
  async poisonMessage(record: PoisonRecord, original: unknown): Promise<void> {
    const whole = { ...record, poisonedAt: new Date().toISOString(), message: original };
    const fits = encodeQueueMessage(whole).length <= MAX_QUEUE_MESSAGE_BYTES;
    const kept = fits
      ? whole
      : { ...whole, message: undefined, messageStart: JSON.stringify(original).slice(0, 30_000) };
    await this.send(this.poisonQueue, kept, 0);
  }

  private async send(queue: QueueClient, body: object, visibilityTimeout: number): Promise<void> {
    let ready = this.ready.get(queue);
    if (!ready) {
      ready = queue
        .createIfNotExists({ abortSignal: storageDeadline(this.deadlineMs) })
        .catch((error: unknown) => {
          this.ready.delete(queue);
          throw error;
        });
      this.ready.set(queue, ready);
    }
    await ready;
    await queue.sendMessage(encodeQueueMessage(body), {
      visibilityTimeout,
      messageTimeToLive: NEVER_EXPIRES,
      abortSignal: storageDeadline(this.deadlineMs),
    });
  }
}
