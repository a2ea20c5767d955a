import { randomUUID } from "node:crypto";
import type { Message } from "rhea";

/** One message in a subscription, as Service Bus tracks it. */
export interface QueuedMessage {
  /** As the sender sent it, with a `message_id` assigned when it had none. */
  readonly message: Message;
  /** Given by the topic on arrival; every subscription's copy carries the same number. */
  readonly sequenceNumber: number;
  readonly enqueuedAt: Date;
  /** Deliveries that ended without completion: abandoned, or its receiver went. */
  readonly deliveryCount: number;
}

export interface SubscriptionStats {
  /** Waiting to be delivered. */
  active: number;
  /** Delivered peek-lock, not settled yet. */
  locked: number;
  /** Completed, or taken by a receiveAndDelete receiver. */
  completed: number;
}

export interface TopicStats {
  /** Messages the topic accepted from senders, with or without subscriptions to take them. */
  accepted: number;
  /** By subscription name, as first spelled. */
  subscriptions: Record<string, SubscriptionStats>;
}

/** The entry of that name (case-insensitive, as Service Bus entity names are), made on first use. */
export function named<T>(entries: Map<string, T>, name: string, make: () => T): T {
  let entry = entries.get(name.toLowerCase());
  if (entry === undefined) {
    entry = make();
    entries.set(name.toLowerCase(), entry);
  }
  return entry;
}

/**
 * One subscription's messages, in sequence order. A peek-lock delivery locks one until its
 * receiver settles it (locks do not expire); completion removes it, while abandonment or a
 * receiver that goes returns it with its delivery count raised.
 */
export class Subscription {
  /** Waiting messages from `head` on (shift() is linear on large arrays). */
  private waiting: QueuedMessage[] = [];
  private head = 0;
  /** Its receiver links, in the order they attached: `offer()` says messages wait, to take what credit allows. */
  readonly consumers = new Set<{ offer(): void }>();
  private locked = 0;
  private completed = 0;

  constructor(readonly name: string) {}

  enqueue(entry: QueuedMessage): void {
    this.waiting.push(entry);
    this.offer();
  }

  /** The first waiting message, locked for a peek-lock receiver or else removed. */
  next(lock: boolean): QueuedMessage | undefined {
    const entry = this.waiting[this.head];
    if (entry === undefined) return undefined;
    this.head++;
    // Drop the consumed front once it is most of the array: amortised constant time per message.
    if (this.head === this.waiting.length || (this.head >= 1024 && this.head * 2 >= this.waiting.length)) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    if (lock) this.locked++;
    else this.completed++;
    return entry;
  }

  complete(): void {
    this.locked--;
    this.completed++;
  }

  /** A locked message back in sequence order, counting its delivery as failed. */
  giveBack(entry: QueuedMessage): void {
    this.locked--;
    this.waiting = this.waiting.slice(this.head);
    this.head = 0;
    const at = this.waiting.findIndex((other) => other.sequenceNumber > entry.sequenceNumber);
    this.waiting.splice(at === -1 ? this.waiting.length : at, 0, {
      ...entry,
      deliveryCount: entry.deliveryCount + 1,
    });
    this.offer();
  }

  stats(): SubscriptionStats {
    return { active: this.waiting.length - this.head, locked: this.locked, completed: this.completed };
  }

  private offer(): void {
    for (const consumer of this.consumers) {
      if (this.head === this.waiting.length) return;
      consumer.offer();
    }
  }
}

/**
 * A topic copies each message it accepts to every subscription it has at that moment, as Service
 * Bus does: a subscription made later starts empty, and a topic without one keeps nothing.
 */
export class Topic {
  private readonly subscriptions = new Map<string, Subscription>();
  private nextSequenceNumber = 1;
  private accepted = 0;

  publish(message: Message): void {
    // The SDK leaves message_id unset unless the caller gave one; receivers expect one.
    const entry = {
      message: message.message_id === undefined ? { ...message, message_id: randomUUID() } : message,
      sequenceNumber: this.nextSequenceNumber++,
      enqueuedAt: new Date(),
      deliveryCount: 0,
    };
    this.accepted++;
    for (const subscription of this.subscriptions.values()) subscription.enqueue(entry);
  }

  subscription(name: string): Subscription {
    return named(this.subscriptions, name, () => new Subscription(name));
  }

  stats(): TopicStats {
    const subscriptions = [...this.subscriptions.values()].map((each) => [each.name, each.stats()]);
    return { accepted: this.accepted, subscriptions: Object.fromEntries(subscriptions) };
  }
}
