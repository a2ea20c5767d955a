import type { QueueClient } from "@azure/storage-queue";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../common/json-depth";
import type { CloudEvent } from "../events/cloud-event";
import { encodeQueueMessage, MAX_QUEUE_MESSAGE_BYTES } from "../events/queue-message";
import { fitQueueTexts, type UnfitEvent } from "../events/queue-texts";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../store/storage-deadline";
import type { DeliveryMessage } from "./delivery-message";

export type PoisonReason =
  | "NoDeadLetterSecret"
  | "SecretsUnreadable"
  | "SettingsNotAdmitted"
  | "DeadLetterWriteFailed"
  | "InvalidMessage"
  | "UnknownInstance"
  | "EventTooDeep"
  | "EndpointDeleted";

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
 * Events scheduleRetry could not put on the queue: they fit no message even alone (queue-texts.ts).
 * The others were written. Thrown, not returned, so that no caller can drop them unawares.
 */
export class EventsDoNotFit extends Error {
  constructor(readonly unfit: UnfitEvent[]) {
    super(`${unfit.length} event(s) fit no queue message: event ${unfit[0]?.event.id} ${unfit[0]?.why}`);
    this.name = "EventsDoNotFit";
  }
}

/** The longest of an event's id, source and type a poison record keeps of an event it cannot hold. */
const LEFT_OUT_CHARACTERS = 1024;

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

  /** Retry messages for `events`, every one that fits; then EventsDoNotFit for those that do not. */
  async scheduleRetry(message: Omit<DeliveryMessage, "events">, events: CloudEvent[], delaySeconds: number) {
    const { texts, unfit } = await fitQueueTexts(message, events);
    for (const text of texts) await this.send(this.main, text, delaySeconds);
    if (unfit.length > 0) throw new EventsDoNotFit(unfit);
  }

  /**
   * Records of `events` with the reason. An event that fits no message (fitQueueTexts) gets a
   * record of its own that names it (id, source, type) and says why it is not kept whole: the
   * poison queue is the last place an event can go, so its record must always be written.
   */
  async poisonEvents(record: PoisonRecord, events: CloudEvent[]): Promise<void> {
    const stamped = { ...record, poisonedAt: new Date().toISOString() };
    const { texts, unfit } = await fitQueueTexts(stamped, events);
    for (const text of texts) await this.send(this.poisonQueue, text, 0);
    for (const { event, why } of unfit) {
      const detail = `${record.detail}; the event is not kept whole: it ${why}`;
      const eventLeftOut = {
        id: event.id.slice(0, LEFT_OUT_CHARACTERS),
        source: event.source.slice(0, LEFT_OUT_CHARACTERS),
        type: event.type.slice(0, LEFT_OUT_CHARACTERS),
      };
      await this.send(this.poisonQueue, encodeQueueMessage({ ...stamped, detail, eventLeftOut }), 0);
    }
  }

  /**
   * A message that is not a twin-events message at all: kept whole when it fits, else as much of
   * its start as fits; one nesting deeper than any valid message (whose JSON cannot be made) not at all.
   */
  async poisonMessage(record: PoisonRecord, original: unknown): Promise<void> {
    const stamped = { ...record, poisonedAt: new Date().toISOString() };
    await this.send(this.poisonQueue, poisonedMessageText(stamped, original), 0);
  }

  private async send(queue: QueueClient, text: string, visibilityTimeout: number): Promise<void> {
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
    await queue.sendMessage(text, {
      visibilityTimeout,
      messageTimeToLive: NEVER_EXPIRES,
      abortSignal: storageDeadline(this.deadlineMs),
    });
  }
}

/** An invalid message's poison record, within the queue's limit (see poisonMessage). */
function poisonedMessageText(record: PoisonRecord & { poisonedAt: string }, original: unknown): string {
  // A valid message nests its events two levels down (the message, its `events`).
  if (nestsDeeperThan(original, MAX_JSON_DEPTH + 2)) {
    const detail = `${record.detail}; the message is not kept: it nests deeper than ${MAX_JSON_DEPTH + 2} levels`;
    return encodeQueueMessage({ ...record, detail });
  }
  const whole = encodeQueueMessage({ ...record, message: original });
  if (whole.length <= MAX_QUEUE_MESSAGE_BYTES) return whole;
  // Escapes and multi-byte characters make the start's text longer than its length: halve until it fits.
  const json = JSON.stringify(original);
  for (let length = 30_000; ; length = Math.floor(length / 2)) {
    const text = encodeQueueMessage({ ...record, messageStart: json.slice(0, length) });
    if (text.length <= MAX_QUEUE_MESSAGE_BYTES || length === 0) return text;
  }
}
