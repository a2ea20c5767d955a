import { ServiceBusClient, type ServiceBusClientOptions, type ServiceBusSender } from "@azure/service-bus";
import type { ServiceBusTarget } from "../endpoints/delivery-endpoint";
import {
  connectionStringProblems,
  type EndpointAllowList,
  serviceBusHostProblems,
} from "../endpoints/endpoint-allow-list";
import { parseAuthority } from "../endpoints/host-names";
import { identityKey } from "../endpoints/managed-identity";
import type { SenderSource } from "./endpoint-delivery";
import { type ManagedIdentityCredentials, processCredentials } from "./managed-identity-credentials";

interface PooledClient {
  client: ServiceBusClient;
  senders: Map<string, ServiceBusSender>;
  lastUsed: number;
}

/**
 * One Service Bus client per connection string (or per namespace and managed identity) and one
 * sender per topic, for the life of the process: opening an AMQP connection per message is the
 * classic serverless performance bug. Clients idle for `idleMs` are closed, so rotated or deleted
 * endpoints do not pin connections. No client is made for a connection string or namespace the
 * allow-list does not admit (one stored before it, or under a wider one): the send fails, and the
 * event is retried, then dead-lettered or poisoned.
 */
export class SenderPool implements SenderSource {
  private readonly clients = new Map<string, PooledClient>();
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

  sender(target: ServiceBusTarget, topic: string): ServiceBusSender {
    const key =
      "connectionString" in target
        ? target.connectionString
        : `identity\n${target.namespace}\n${identityKey(target.identity)}`;
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
