import { randomUUID } from "node:crypto";
import type { Message } from "rhea";
import { MessageQueue, type QueueSettings, type QueueStats } from "./message-queue";

export interface SubscriptionStats extends QueueStats {
  /** Messages in the subscription's dead-letter queue. */
  deadLettered: number;
}

export interface TopicStats {
  /** Messages the topic accepted from senders, with or without subscriptions to take them. */
  accepted: number;
  /** Accepted while the topic had no subscription: no subscription will ever see these. */
  unrouted: number;
  /** By subscription name, as first spelled. */
  subscriptions: Record<string, SubscriptionStats>;
}

export class Subscription {
  readonly deadLetter: MessageQueue;
  readonly active: MessageQueue;

  constructor(
    readonly name: string,
    settings: QueueSettings,
  ) {
    this.deadLetter = new MessageQueue(settings);
    this.active = new MessageQueue(settings, this.deadLetter);
  }

  stats(): SubscriptionStats {
    const deadLetter = this.deadLetter.stats();
    return { ...this.active.stats(), deadLettered: deadLetter.active + deadLetter.locked };
  }

  dispose(): void {
    this.active.dispose();
    this.deadLetter.dispose();
  }
}

/**
 * A topic copies each message it accepts to every subscription it has at that moment, as Service
 * Bus does: a subscription created later starts empty.
 */
export class Topic {
  private readonly subscriptions = new Map<string, Subscription>();
  private nextSequenceNumber = 1;
  private accepted = 0;
  private unrouted = 0;

  constructor(
    readonly name: string,
    private readonly settings: QueueSettings,
  ) {}

  publish(message: Message): void {
    // The SDK leaves message_id unset unless the caller gave one; receivers expect one.
    const stored = message.message_id === undefined ? { ...message, message_id: randomUUID() } : message;
    const entry = {
      message: stored,
      sequenceNumber: this.nextSequenceNumber++,
      enqueuedAt: new Date(),
      deliveryCount: 0,
    };
    this.accepted++;
    if (this.subscriptions.size === 0) this.unrouted++;
    for (const subscription of this.subscriptions.values()) subscription.active.enqueue(entry);
  }

  /** The subscription of that name (case-insensitive), created empty on first use. */
  subscription(name: string): Subscription {
    const key = name.toLowerCase();
    let subscription = this.subscriptions.get(key);
    if (subscription === undefined) {
      subscription = new Subscription(name, this.settings);
      this.subscriptions.set(key, subscription);
    }
    return subscription;
  }

  stats(): TopicStats {
    const subscriptions = [...this.subscriptions.values()].map((s) => [s.name, s.stats()] as const);
    return {
      accepted: this.accepted,
      unrouted: this.unrouted,
      subscriptions: Object.fromEntries(subscriptions),
    };
  }

  dispose(): void {
    for (const subscription of this.subscriptions.values()) subscription.dispose();
  }
}

/** Every topic of the stand-in's one namespace, created on first use; names are case-insensitive. */
export class TopicRegistry {
  private readonly topics = new Map<string, Topic>();

  constructor(private readonly settings: QueueSettings) {}

  topic(name: string): Topic {
    const key = name.toLowerCase();
    let topic = this.topics.get(key);
    if (topic === undefined) {
      topic = new Topic(name, this.settings);
      this.topics.set(key, topic);
    }
    return topic;
  }

  /** The active or dead-letter queue of a subscription, creating topic and subscription if needed. */
  queue(topic: string, subscription: string, deadLetter: boolean): MessageQueue {
    const found = this.topic(topic).subscription(subscription);
    return deadLetter ? found.deadLetter : found.active;
  }

  /** Counters for tests; a topic never used reports zeros. */
  stats(topic: string): TopicStats {
    return this.topics.get(topic.toLowerCase())?.stats() ?? { accepted: 0, unrouted: 0, subscriptions: {} };
  }

  dispose(): void {
    for (const topic of this.topics.values()) topic.dispose();
    this.topics.clear();
  }
}
