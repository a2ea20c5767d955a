import { ServiceBusClient, type ServiceBusClientOptions, type ServiceBusSender } from "@azure/service-bus";
import type { ServiceBusTarget } from "../endpoints/delivery-endpoint";
import {
  connectionStringProblems,
  type EndpointAllowList,
  serviceBusHostProblems,
} from "../endpoints/endpoint-allow-list";
import { parseAuthority } from "../endpoints/host-names";
import { identityKey } from "../endpoints/managed-identity";
import { storageDeadline } from "../store/storage-deadline";
import type { SenderSource, TopicSender } from "./endpoint-delivery";
import { type ManagedIdentityCredentials, processCredentials } from "./managed-identity-credentials";

interface PooledClient {
  client: ServiceBusClient;
  senders: Map<string, ServiceBusSender>;
  lastUsed: number;
}

/** A send that got no answer within the send timeout (DELIVERY_SEND_TIMEOUT_MS). */
export class SendTimeoutError extends Error {
  override readonly name = "SendTimeoutError";
}

/** A send not tried: the target's last attempt timed out, and it is not tried again until `until`. */
export class TargetCoolingError extends Error {
  override readonly name = "TargetCoolingError";
}

/** A target whose attempt timed out: when it is tried again, and whether that one attempt is under way. */
interface Cooling {
  until: number;
  since: string;
  probing: boolean;
}

/**
 * One Service Bus client per connection string (or per namespace and managed identity) and one
 * sender per topic, for the life of the process: opening an AMQP connection per message is the
 * classic serverless performance bug. Clients idle for `idleMs` are closed, so rotated or deleted
 * endpoints do not pin connections. No client is made for a connection string or namespace the
 * allow-list does not admit (one stored before it, or under a wider one): the send fails, and the
 * event is retried, then dead-lettered or poisoned.
 *
 * Every call a sender makes (a batch, which opens the link and so gets its token, and a send)
 * ends within `sendTimeoutMs`, whatever the namespace or the identity endpoint does: the SDK's
 * own `timeoutInMs` does not cover waiting for a token. A target whose call timed out is a slow
 * one: its client, which may be stuck mid-authorization, is closed and made anew on the next
 * attempt, and for `sendTimeoutMs` it is not tried at all (its events fail at once and are
 * retried later), then by one attempt at a time until one succeeds. So a namespace or identity
 * endpoint that hangs holds one delivery at a time, for one timeout, never the instance's queue.
 */
export class SenderPool implements SenderSource {
  private readonly clients = new Map<string, PooledClient>();
  private readonly cooling = new Map<string, Cooling>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly sendTimeoutMs: number,
    private readonly allowList: EndpointAllowList,
    private readonly idleMs = 10 * 60_000,
    private readonly credentials: ManagedIdentityCredentials = processCredentials,
  ) {
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  sender(target: ServiceBusTarget, topic: string): TopicSender {
    const key =
      "connectionString" in target
        ? target.connectionString
        : `identity\n${target.namespace}\n${identityKey(target.identity)}`;
    const raw = this.rawSender(key, target, topic);
    return {
      createMessageBatch: (options) =>
        this.attempt(key, (abortSignal) => raw.createMessageBatch({ ...options, abortSignal })),
      sendMessages: (messages, options) =>
        this.attempt(key, (abortSignal) => raw.sendMessages(messages, { ...options, abortSignal })),
    };
  }

  /** One call to a target, within the send timeout; not made while the target cools down (above). */
  private async attempt<T>(key: string, call: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    const cooling = this.cooling.get(key);
    if (cooling && (cooling.probing || Date.now() < cooling.until)) {
      throw new TargetCoolingError(
        `not tried: a call to it at ${cooling.since} got no answer within ${this.sendTimeoutMs} ms (DELIVERY_SEND_TIMEOUT_MS); it is tried again ${cooling.probing ? "once the attempt under way ends" : `from ${new Date(cooling.until).toISOString()}`}`,
      );
    }
    if (cooling) cooling.probing = true;
    const deadline = storageDeadline(this.sendTimeoutMs);
    try {
      const result = await new Promise<T>((resolve, reject) => {
        const timedOut = () =>
          reject(
            new SendTimeoutError(`no answer within ${this.sendTimeoutMs} ms (DELIVERY_SEND_TIMEOUT_MS)`),
          );
        deadline.addEventListener("abort", timedOut, { once: true });
        call(deadline)
          .then(resolve, reject)
          .finally(() => deadline.removeEventListener("abort", timedOut));
      });
      this.cooling.delete(key);
      return result;
    } catch (error) {
      if (error instanceof SendTimeoutError) {
        this.cooling.set(key, {
          until: Date.now() + this.sendTimeoutMs,
          since: new Date().toISOString(),
          probing: false,
        });
        this.evict(key);
      } else if (cooling) cooling.probing = false;
      throw error;
    }
  }

  /** Closes a target's client (it may be stuck), in the background: the next attempt makes a new one. */
  private evict(key: string): void {
    const pooled = this.clients.get(key);
    if (!pooled) return;
    this.clients.delete(key);
    void pooled.client.close().catch(() => undefined);
  }

  private rawSender(key: string, target: ServiceBusTarget, topic: string): ServiceBusSender {
    let pooled = this.clients.get(key);
    if (!pooled) {
      pooled = { client: this.client(target), senders: new Map(), lastUsed: Date.now() };
      this.clients.set(key, pooled);
    }
    pooled.lastUsed = Date.now();
    let sender = pooled.senders.get(topic);
    if (!sender) {
      sender = pooled.client.createSender(topic);
      pooled.senders.set(topic, sender);
    }
    return sender;
  }

  private client(target: ServiceBusTarget): ServiceBusClient {
    // Delivery has its own retry schedule (minutes to hours); the SDK only bridges a blip.
    const options: ServiceBusClientOptions = {
      retryOptions: { maxRetries: 1, retryDelayInMs: 200, timeoutInMs: this.sendTimeoutMs },
    };
    if ("connectionString" in target) {
      const refused = connectionStringProblems(target.connectionString, this.allowList);
      if (refused.length > 0) {
        // Problems name keys and settings, never values: safe in lastError and the poison record.
        throw new Error(
          `the endpoint's connection string is not admitted (it ${refused.join("; ")}); delivery re-checks SERVICEBUS_HOST_SUFFIXES and ALLOW_LOOPBACK_ENDPOINTS`,
        );
      }
      return new ServiceBusClient(target.connectionString, options);
    }
    const authority = parseAuthority(target.namespace);
    const refused = authority ? serviceBusHostProblems(authority, this.allowList) : ["is not a host name"];
    if (refused.length > 0) {
      throw new Error(
        `the endpoint's endpointUri is not admitted (it ${refused.join("; ")}); delivery re-checks SERVICEBUS_HOST_SUFFIXES and ALLOW_LOOPBACK_ENDPOINTS`,
      );
    }
    return new ServiceBusClient(target.namespace, this.credentials.of(target.identity), options);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.allSettled(all.map((pooled) => pooled.client.close()));
  }

  private async closeIdle(): Promise<void> {
    const cutoff = Date.now() - this.idleMs;
    for (const [key, pooled] of this.clients) {
      if (pooled.lastUsed >= cutoff) continue;
      this.clients.delete(key);
      await pooled.client.close().catch(() => undefined);
    }
  }
}
