import type { Message } from "rhea";

/** One message in a subscription (or its dead-letter queue), as Service Bus tracks it. */
export interface QueuedMessage {
  /** As the sender sent it, with a `message_id` assigned when it had none. */
  readonly message: Message;
  /** Given by the topic on arrival; every subscription's copy carries the same number. */
  readonly sequenceNumber: number;
  readonly enqueuedAt: Date;
  /** Deliveries that ended without completion: abandoned, lock expired, receiver gone. */
  readonly deliveryCount: number;
}

export interface Lock {
  readonly token: string;
  readonly entry: QueuedMessage;
  readonly lockedUntil: Date;
}

/** A receiver link fed by a queue. */
export interface QueueConsumer {
  /** Messages may be available: take as many as the link's credit allows. */
  offer(): void;
  /** The queue dropped one of this consumer's locks: it expired, or `$management` settled it. */
  lockEnded(token: string, how: "expired" | "settled"): void;
}

export interface QueueSettings {
  lockDurationMs: number;
  /** Failed deliveries after which a message moves to the dead-letter queue (Service Bus: 10). */
  maxDeliveryCount: number;
}

interface HeldLock {
  entry: QueuedMessage;
  holder: QueueConsumer;
  lockedUntil: Date;
  timer: NodeJS.Timeout;
}

export interface QueueStats {
  /** Waiting to be delivered. */
  active: number;
  /** Delivered and locked, not settled yet. */
  locked: number;
  completed: number;
}

/**
 * Peek-lock message store for one subscription: messages wait in sequence order, a delivery locks
 * one for `lockDurationMs`, and completion removes it while abandonment, lock expiry or a
 * vanished receiver returns it with its delivery count raised.
 */
export class MessageQueue {
  /** Waiting messages in sequence order, from `head` on (shift() is linear on large arrays). */
  private available: QueuedMessage[] = [];
  private head = 0;
  private readonly locks = new Map<string, HeldLock>();
  private readonly consumers: QueueConsumer[] = [];
  private nextConsumer = 0;
  private completed = 0;

  /** `deadLetterTo` is absent for a dead-letter queue itself: its messages only come back. */
  constructor(
    private readonly settings: QueueSettings,
    private readonly deadLetterTo?: MessageQueue,
  ) {}

  enqueue(entry: QueuedMessage): void {
    const last = this.available[this.available.length - 1];
    if (this.waiting() === 0 || (last as QueuedMessage).sequenceNumber < entry.sequenceNumber) {
      this.available.push(entry);
    } else {
      this.compact();
      this.available.splice(this.insertionIndex(entry.sequenceNumber), 0, entry);
    }
    this.offerToConsumers();
  }

  addConsumer(consumer: QueueConsumer): void {
    this.consumers.push(consumer);
  }

  removeConsumer(consumer: QueueConsumer): void {
    const index = this.consumers.indexOf(consumer);
    if (index >= 0) this.consumers.splice(index, 1);
  }

  /** Locks the first waiting message for `holder` under `token`, if any is waiting. */
  lockNext(holder: QueueConsumer, token: string): Lock | undefined {
    const entry = this.shiftAvailable();
    if (entry === undefined) return undefined;
    const lockedUntil = new Date(Date.now() + this.settings.lockDurationMs);
    this.locks.set(token, { entry, holder, lockedUntil, timer: this.expiryTimer(token) });
    return { token, entry, lockedUntil };
  }

  /** Removes the first waiting message for a receiveAndDelete receiver: completed on receipt, no lock. */
  take(): QueuedMessage | undefined {
    const entry = this.shiftAvailable();
    if (entry !== undefined) this.completed++;
    return entry;
  }

  isLocked(token: string): boolean {
    return this.locks.has(token);
  }

  complete(token: string): boolean {
    if (this.unlock(token) === undefined) return false;
    this.completed++;
    return true;
  }

  /** Returns the message for another delivery, counting this one as failed. */
  abandon(token: string): boolean {
    const lock = this.unlock(token);
    if (lock === undefined) return false;
    this.returnFailed(lock.entry);
    return true;
  }

  /** Returns the message without counting a failed delivery (the receiver did not process it). */
  release(token: string): boolean {
    const lock = this.unlock(token);
    if (lock === undefined) return false;
    this.enqueue(lock.entry);
    return true;
  }

  /** Moves the message to the dead-letter queue, adding `properties` (DeadLetterReason, ...) to it. */
  deadLetter(token: string, properties: Record<string, unknown>): boolean {
    const lock = this.unlock(token);
    if (lock === undefined) return false;
    this.moveToDeadLetter(lock.entry, properties);
    return true;
  }

  /** Extends the lock by the lock duration; undefined when the lock is gone. */
  renew(token: string): Date | undefined {
    const lock = this.locks.get(token);
    if (lock === undefined) return undefined;
    clearTimeout(lock.timer);
    lock.lockedUntil = new Date(Date.now() + this.settings.lockDurationMs);
    lock.timer = this.expiryTimer(token);
    return lock.lockedUntil;
  }

  /** Settles a lock through `$management` rather than the link that holds it. */
  settleElsewhere(token: string, outcome: "complete" | "abandon" | "deadLetter"): boolean {
    const holder = this.locks.get(token)?.holder;
    const settled =
      outcome === "complete"
        ? this.complete(token)
        : outcome === "abandon"
          ? this.abandon(token)
          : this.deadLetter(token, {});
    if (settled) holder?.lockEnded(token, "settled");
    return settled;
  }

  /** Waiting and locked messages from `fromSequenceNumber` on, in sequence order, without locking. */
  peek(fromSequenceNumber: number, maxCount: number): QueuedMessage[] {
    const locked = [...this.locks.values()].map((lock) => lock.entry);
    return [...this.available.slice(this.head), ...locked]
      .filter((entry) => entry.sequenceNumber >= fromSequenceNumber)
      .sort((a, b) => a.sequenceNumber - b.sequenceNumber)
      .slice(0, maxCount);
  }

  stats(): QueueStats {
    return { active: this.waiting(), locked: this.locks.size, completed: this.completed };
  }

  /** Stops every lock timer; the queue is unusable afterwards. */
  dispose(): void {
    for (const lock of this.locks.values()) clearTimeout(lock.timer);
    this.locks.clear();
    this.available = [];
    this.head = 0;
    this.consumers.length = 0;
  }

  private unlock(token: string): HeldLock | undefined {
    const lock = this.locks.get(token);
    if (lock === undefined) return undefined;
    clearTimeout(lock.timer);
    this.locks.delete(token);
    return lock;
  }

  private expiryTimer(token: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const lock = this.unlock(token);
      if (lock === undefined) return;
      lock.holder.lockEnded(token, "expired");
      this.returnFailed(lock.entry);
    }, this.settings.lockDurationMs);
    // A pending lock must not keep a process (or a test run) alive on its own.
    timer.unref();
    return timer;
  }

  private returnFailed(entry: QueuedMessage): void {
    const returned = { ...entry, deliveryCount: entry.deliveryCount + 1 };
    if (this.deadLetterTo !== undefined && returned.deliveryCount >= this.settings.maxDeliveryCount) {
      this.moveToDeadLetter(returned, {
        DeadLetterReason: "MaxDeliveryCountExceeded",
        DeadLetterErrorDescription: `Message could not be consumed after ${this.settings.maxDeliveryCount} delivery attempts.`,
      });
    } else {
      this.enqueue(returned);
    }
  }

  private moveToDeadLetter(entry: QueuedMessage, properties: Record<string, unknown>): void {
    if (this.deadLetterTo === undefined) {
      // Already in a dead-letter queue: Service Bus has nowhere further to move it.
      this.enqueue(entry);
      return;
    }
    const added = Object.entries(properties).filter(([, value]) => value !== undefined && value !== null);
    const application_properties = { ...entry.message.application_properties, ...Object.fromEntries(added) };
    this.deadLetterTo.enqueue({ ...entry, message: { ...entry.message, application_properties } });
  }

  private offerToConsumers(): void {
    // Start with a different consumer each time, so competing receivers share the messages.
    const count = this.consumers.length;
    const start = this.nextConsumer++ % Math.max(count, 1);
    for (let i = 0; i < count && this.waiting() > 0; i++) {
      this.consumers[(start + i) % count]?.offer();
    }
  }

  private waiting(): number {
    return this.available.length - this.head;
  }

  private shiftAvailable(): QueuedMessage | undefined {
    if (this.waiting() === 0) return undefined;
    const entry = this.available[this.head] as QueuedMessage;
    this.available[this.head++] = undefined as unknown as QueuedMessage;
    if (this.head === this.available.length) {
      this.available = [];
      this.head = 0;
    }
    // Drop the consumed front once it is most of the array: amortised constant time per message.
    if (this.head >= 1024 && this.head * 2 >= this.available.length) this.compact();
    return entry;
  }

  private compact(): void {
    if (this.head === 0) return;
    this.available = this.available.slice(this.head);
    this.head = 0;
  }

  private insertionIndex(sequenceNumber: number): number {
    let low = 0;
    let high = this.available.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.available[middle]?.sequenceNumber ?? Number.POSITIVE_INFINITY) < sequenceNumber)
        low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
