import { ServiceBusClient, type ServiceBusSender } from "@azure/service-bus";
import { connectionStringProblems, type EndpointAllowList } from "../endpoints/endpoint-allow-list";
import type { SenderSource } from "./endpoint-delivery";

interface PooledClient {
  client: ServiceBusClient;
  senders: Map<string, ServiceBusSender>;
  lastUsed: number;
}

/**
 * One Service Bus client per connection string and one sender per topic, for the life of the
 * process: opening an AMQP connection per message is the classic serverless performance bug.
 * Clients idle for `idleMs` are closed, so rotated or deleted endpoints do not pin connections.
 * No client is made for a connection string the allow-list does not admit (one stored before it,
 * or under a wider one): the send fails, and the event is retried, then dead-lettered or poisoned.
 */
export class SenderPool implements SenderSource {
  private readonly clients = new Map<string, PooledClient>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly sendTimeoutMs: number,
    private readonly allowList: EndpointAllowList,
    private readonly idleMs = 10 * 60_000,
  ) {
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  sender(connectionString: string, topic: string): ServiceBusSender {
    let pooled = this.clients.get(connectionString);
    if (!pooled) {
      const refused = connectionStringProblems(connectionString, this.allowList);
      if (refused.length > 0) {
        // Problems name keys and settings, never values: safe in lastError and the poison record.
        throw new Error(
          `the endpoint's connection string is not admitted (it ${refused.join("; ")}); delivery re-checks SERVICEBUS_HOST_SUFFIXES and ALLOW_LOOPBACK_ENDPOINTS`,
        );
      }
      pooled = {
        client: new ServiceBusClient(connectionString, {
          // Delivery has its own retry schedule (minutes to hours); the SDK only bridges a blip.
          retryOptions: { maxRetries: 1, retryDelayInMs: 200, timeoutInMs: this.sendTimeoutMs },
        }),
        senders: new Map(),
        lastUsed: Date.now(),
      };
      this.clients.set(connectionString, pooled);
    }
    pooled.lastUsed = Date.now();
    let sender = pooled.senders.get(topic);
    if (!sender) {
      sender = pooled.client.createSender(topic);
      pooled.senders.set(topic, sender);
    }
    return sender;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.allSettled(all.map((pooled) => pooled.client.close()));
  }

  private async closeIdle(): Promise<void> {
    const cutoff = Date.now() - this.idleMs;
    for (const [connectionString, pooled] of this.clients) {
      if (pooled.lastUsed >= cutoff) continue;
      this.clients.delete(connectionString);
      await pooled.client.close().catch(() => undefined);
    }
  }
}
