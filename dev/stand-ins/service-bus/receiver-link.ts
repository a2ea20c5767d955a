import type { Delivery, EventContext, Sender } from "rhea";
import { deliveredMessage, peekedMessage } from "./broker-annotations";
import { newLockToken } from "./lock-token";
import type { MessageQueue, QueueConsumer } from "./message-queue";
import {
  agreeToPresettled,
  answerEveryDrain,
  deliveryLimit,
  type OutcomeName,
  sessionHasRoom,
  settleSent,
} from "./rhea-internals";

type Outcome = "complete" | "abandon" | "deadLetter" | "defer";

/** The outcome the stand-in settles with once it applied the client's: the same kind, no error. */
const SETTLED_AS: Record<Exclude<Outcome, "defer">, OutcomeName> = {
  complete: "accepted",
  abandon: "modified",
  deadLetter: "rejected",
};

const LOCK_LOST = {
  condition: "com.microsoft:message-lock-lost",
  description:
    "The lock supplied is invalid. Either the lock expired, or the message has already been removed.",
};
const DEFER_NOT_SERVED = {
  condition: "amqp:not-implemented",
  description:
    "The Service Bus stand-in does not support deferral; use the official emulator or a real namespace.",
};

/**
 * The stand-in's end of a client's receiver link on a subscription: peek-lock delivery within
 * the credit the client grants. Each delivery's tag is its lock token. The client's outcome
 * settles the lock (accepted = complete, released or modified = abandon, rejected = dead-letter),
 * and whatever the link still holds when it goes returns to the subscription. A receiveAndDelete
 * link instead gets each message pre-settled, removed from the subscription as it is sent.
 */
export class SubscriptionReceiverLink implements QueueConsumer {
  /** Deliveries whose lock this link holds, by lock token. */
  private readonly held = new Map<string, Delivery>();
  /** Lock tokens of unsettled deliveries, including those whose lock expired. */
  private readonly tokens = new Map<Delivery, string>();
  /** Delivery-count slots this side used up: deliveries handed to rhea plus credit drained. */
  private used = 0;
  private closed = false;
  private readonly deleteOnReceipt: boolean;

  constructor(
    private readonly link: Sender,
    private readonly queue: MessageQueue,
  ) {
    this.deleteOnReceipt = agreeToPresettled(link);
    answerEveryDrain(link);
    link.on("sender_flow", () => this.offer());
    // rhea's session buffer had no room and has some again.
    link.on("sendable", () => this.offer());
    link.on("sender_draining", () => this.drain());
    link.on("accepted", (context: EventContext) => this.settle(context, "complete"));
    link.on("released", (context: EventContext) => this.settle(context, "abandon"));
    link.on("modified", (context: EventContext) => this.settle(context, modifiedOutcome(context)));
    link.on("rejected", (context: EventContext) => this.settle(context, "deadLetter"));
    link.on("sender_close", () => this.close());
    queue.addConsumer(this);
  }

  offer(): void {
    if (this.closed) return;
    while (deliveryLimit(this.link) > this.used && sessionHasRoom(this.link)) {
      if (this.deleteOnReceipt) {
        const entry = this.queue.take();
        if (entry === undefined) return;
        this.link.send(peekedMessage(entry));
        this.used++;
        continue;
      }
      const token = newLockToken();
      const lock = this.queue.lockNext(this, token.text);
      if (lock === undefined) return;
      const delivery = this.link.send(deliveredMessage(lock), token.deliveryTag);
      this.used++;
      this.held.set(token.text, delivery);
      this.tokens.set(delivery, token.text);
    }
  }

  lockEnded(token: string, how: "expired" | "settled"): void {
    const delivery = this.held.get(token);
    if (delivery === undefined) return;
    this.held.delete(token);
    if (how === "settled") {
      this.tokens.delete(delivery);
      settleSent(delivery, "released");
    }
    // An expired lock keeps its token, so a late settlement is answered "lock lost", as Service Bus does.
  }

  /** Returns every message this link still holds to the subscription, as a lost lock would. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.removeConsumer(this);
    const tokens = [...this.held.keys()];
    this.held.clear();
    this.tokens.clear();
    for (const token of tokens) this.queue.abandon(token);
  }

  /** The client asks for what is there now and the rest of its credit back (receiveMessages does, at the end). */
  private drain(): void {
    this.offer();
    this.used = deliveryLimit(this.link);
    this.link.set_drained(true);
  }

  private settle(context: EventContext, outcome: Outcome): void {
    const delivery = context.delivery;
    const token = delivery && this.tokens.get(delivery);
    if (delivery === undefined || token === undefined) return;
    this.tokens.delete(delivery);
    const stillLocked = this.held.delete(token);
    if (!stillLocked) {
      settleSent(delivery, "rejected", LOCK_LOST);
    } else if (outcome === "defer") {
      this.queue.release(token);
      settleSent(delivery, "rejected", DEFER_NOT_SERVED);
    } else if (this.apply(outcome, token, delivery)) {
      settleSent(delivery, SETTLED_AS[outcome]);
    } else {
      settleSent(delivery, "rejected", LOCK_LOST);
    }
  }

  /** Applies the client's outcome to the lock; false when the lock was gone. */
  private apply(outcome: Exclude<Outcome, "defer">, token: string, delivery: Delivery): boolean {
    if (outcome === "complete") return this.queue.complete(token);
    if (outcome === "abandon") return this.queue.abandon(token);
    return this.queue.deadLetter(token, deadLetterProperties(delivery));
  }
}

/** `modified` with undeliverable-here is how the SDK defers; without it, how it abandons. */
function modifiedOutcome(context: EventContext): Outcome {
  const state: { undeliverable_here?: unknown } | undefined = context.delivery?.remote_state;
  return state?.undeliverable_here === true ? "defer" : "abandon";
}

/** The SDK sends DeadLetterReason, DeadLetterErrorDescription and any properties to modify as error info. */
function deadLetterProperties(delivery: Delivery): Record<string, unknown> {
  const state: { error?: { info?: unknown } } | undefined = delivery.remote_state;
  const info = state?.error?.info;
  return typeof info === "object" && info !== null ? (info as Record<string, unknown>) : {};
}
