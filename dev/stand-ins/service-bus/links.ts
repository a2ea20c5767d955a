import { randomBytes } from "node:crypto";
import { type Delivery, type EventContext, type Message, type Receiver, type Sender, types } from "rhea";
import type { QueuedMessage, Subscription, Topic } from "./broker";
import {
  agreeToPresettled,
  answerEveryDrain,
  BATCH_MESSAGE_FORMAT,
  decodeBatch,
  deliveryLimit,
  sessionHasRoom,
  settleSent,
} from "./rhea-internals";

/**
 * What a peek-lock delivery announces as its lock's end: an hour on, since locks here last until
 * settled, and then the SDK's auto lock renewal (5 min by default) sees nothing to renew.
 */
const LOCK_ANNOUNCED_MS = 3_600_000;

/**
 * The stand-in's end of a client's sender link to a topic. A transfer is one message (format 0,
 * which rhea decodes) or a batch envelope (array and `ServiceBusMessageBatch` sends); its messages
 * are published before the transfer is accepted, so a send that resolved is a send that arrived.
 * Sizes are the client's to keep: the SDK fills batches to the link's announced max-message-size.
 */
export function serveTopicSender(link: Receiver, topic: Topic): void {
  link.on("message", ({ delivery, message }: EventContext) => {
    if (delivery === undefined) return;
    let messages: Message[];
    try {
      if (delivery.format === 0) messages = [message as Message];
      else if (delivery.format === BATCH_MESSAGE_FORMAT && Buffer.isBuffer(message)) {
        messages = decodeBatch(message);
      } else throw new Error(`message format ${delivery.format} is not supported`);
    } catch (error) {
      return delivery.reject({ condition: "amqp:decode-error", description: (error as Error).message });
    }
    for (const each of messages) topic.publish(each);
    delivery.accept();
  });
}

/**
 * The stand-in's end of a client's receiver link on a subscription: peek-lock deliveries within
 * the credit the client grants, each tagged with a lock token (16 random bytes, which the SDK
 * shows as a GUID). Accepted completes the message; released or modified abandons it (back to the
 * subscription, delivery count raised); dead-lettering (rejected) and deferral (modified,
 * undeliverable here) are refused, the message given back. Whatever the link holds when it goes
 * returns to the subscription. A receiveAndDelete link gets each message pre-settled instead,
 * removed from the subscription as it is sent.
 */
export class SubscriptionReceiverLink {
  private readonly held = new Map<Delivery, QueuedMessage>();
  /** Delivery-count slots this side used up: deliveries handed to rhea plus credit drained. */
  private used = 0;
  private closed = false;
  private readonly deleteOnReceipt: boolean;

  constructor(
    readonly link: Sender,
    private readonly subscription: Subscription,
  ) {
    this.deleteOnReceipt = agreeToPresettled(link);
    answerEveryDrain(link);
    link.on("sender_flow", () => this.offer());
    // rhea's session buffer had no room and has some again.
    link.on("sendable", () => this.offer());
    // The client asks for what is there now and the rest of its credit back (receiveMessages does, at the end).
    link.on("sender_draining", () => {
      this.offer();
      this.used = deliveryLimit(link);
      link.set_drained(true);
    });
    link.on("accepted", ({ delivery }: EventContext) => this.settle(delivery, "complete"));
    link.on("released", ({ delivery }: EventContext) => this.settle(delivery, "abandon"));
    link.on("modified", ({ delivery }: EventContext) => {
      const state: { undeliverable_here?: unknown } | undefined = delivery?.remote_state;
      this.settle(delivery, state?.undeliverable_here === true ? "deferral" : "abandon");
    });
    link.on("rejected", ({ delivery }: EventContext) => this.settle(delivery, "dead-lettering"));
    link.on("sender_close", () => this.close());
    subscription.consumers.add(this);
  }

  offer(): void {
    while (!this.closed && deliveryLimit(this.link) > this.used && sessionHasRoom(this.link)) {
      const entry = this.subscription.next(!this.deleteOnReceipt);
      if (entry === undefined) return;
      this.used++;
      if (this.deleteOnReceipt) {
        this.link.send(delivered(entry));
      } else {
        const lockedUntil = new Date(Date.now() + LOCK_ANNOUNCED_MS);
        this.held.set(this.link.send(delivered(entry, lockedUntil), randomBytes(16)), entry);
      }
    }
  }

  /** Gives every message this link still holds back to the subscription. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.subscription.consumers.delete(this);
    for (const entry of this.held.values()) this.subscription.giveBack(entry);
    this.held.clear();
  }

  private settle(
    delivery: Delivery | undefined,
    outcome: "complete" | "abandon" | "dead-lettering" | "deferral",
  ) {
    const entry = delivery && this.held.get(delivery);
    if (delivery === undefined || entry === undefined) return;
    this.held.delete(delivery);
    if (outcome === "complete") this.subscription.complete();
    else this.subscription.giveBack(entry);
    if (outcome === "complete" || outcome === "abandon") {
      return settleSent(delivery, outcome === "complete" ? "accepted" : "modified");
    }
    settleSent(delivery, "rejected", {
      condition: "amqp:not-implemented",
      description: `The Service Bus stand-in does not support ${outcome}; use the official emulator or a real namespace.`,
    });
  }
}

/**
 * The message a receiver gets: the sender's message plus what the broker adds. The SDK reads the
 * sequence number, enqueued time and lock end from these annotations and the delivery count from
 * the header; delivery annotations belong to the sender's hop and are dropped.
 */
function delivered(entry: QueuedMessage, lockedUntil?: Date): Message {
  const { delivery_annotations: _senderHop, ...sent } = entry.message;
  return {
    ...sent,
    delivery_count: entry.deliveryCount,
    message_annotations: {
      ...sent.message_annotations,
      "x-opt-sequence-number": types.wrap_long(entry.sequenceNumber),
      "x-opt-enqueued-time": entry.enqueuedAt,
      ...(lockedUntil && { "x-opt-locked-until": lockedUntil }),
    },
  };
}
