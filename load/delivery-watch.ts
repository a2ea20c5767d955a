import { ServiceBusClient, type ServiceBusReceiver } from "@azure/service-bus";

/** The instances whose deliveries are checked, each with the topics of its endpoints. */
export interface WatchedInstance {
  instance: string;
  topics: string[];
}

interface TopicWatch {
  topic: string;
  instance: string;
  receiver: ServiceBusReceiver;
  received: Set<string>;
  duplicates: number;
}

/**
 * Subscribers on every topic of the watched instances, recording each message's id (the event
 * id), so that at the end every accepted event can be checked off on every endpoint's topic:
 * delivery is at least once, so repeats are counted but not missing events.
 */
export class DeliveryWatch {
  private readonly accepted = new Map<string, Set<string>>();
  private receiving = true;
  private readonly loops: Promise<void>[] = [];
  private failure: unknown;

  private constructor(
    private readonly client: ServiceBusClient,
    private readonly topics: TopicWatch[],
  ) {
    for (const watch of topics) {
      this.accepted.set(watch.instance, this.accepted.get(watch.instance) ?? new Set());
      this.loops.push(this.receive(watch));
    }
  }

  static async start(connectionString: string, instances: WatchedInstance[]): Promise<DeliveryWatch> {
    const client = new ServiceBusClient(connectionString);
    const topics: TopicWatch[] = [];
    for (const { instance, topics: names } of instances) {
      for (const topic of names) {
        const receiver = client.createReceiver(topic, "load-watch", { receiveMode: "receiveAndDelete" });
        // The first receive attaches the link, which creates the subscription on the stand-in:
        // from then on the topic keeps every message for it.
        await receiver.receiveMessages(1, { maxWaitTimeInMs: 100 });
        topics.push({ topic, instance, receiver, received: new Set(), duplicates: 0 });
      }
    }
    return new DeliveryWatch(client, topics);
  }

  /** Events the service accepted (202) for `instance`: each must reach every topic of it. */
  accept(instance: string, ids: readonly string[]): void {
    const accepted = this.accepted.get(instance);
    if (accepted === undefined) throw new Error(`${instance} is not watched`);
    for (const id of ids) accepted.add(id);
  }

  /** Accepted events times the topics they must reach. */
  expected(): number {
    return this.topics.reduce((sum, watch) => sum + (this.accepted.get(watch.instance)?.size ?? 0), 0);
  }

  /** Accepted events that reached a topic, each counted once per topic. */
  delivered(): number {
    let delivered = 0;
    for (const watch of this.topics) {
      const accepted = this.accepted.get(watch.instance) ?? new Set<string>();
      for (const id of watch.received) if (accepted.has(id)) delivered++;
    }
    return delivered;
  }

  duplicates(): number {
    return this.topics.reduce((sum, watch) => sum + watch.duplicates, 0);
  }

  /** Polls until every accepted event reached every topic, or the time is up; true when complete. */
  async waitUntilComplete(timeoutMs: number, onTick?: () => void): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (this.failure !== undefined) throw this.failure;
      if (this.delivered() >= this.expected()) return true;
      onTick?.();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return this.delivered() >= this.expected();
  }

  async close(): Promise<void> {
    this.receiving = false;
    await Promise.all(this.loops);
    await Promise.all(this.topics.map((watch) => watch.receiver.close()));
    await this.client.close();
  }

  private async receive(watch: TopicWatch): Promise<void> {
    try {
      while (this.receiving) {
        for (const message of await watch.receiver.receiveMessages(1000, { maxWaitTimeInMs: 50 })) {
          const id = String(message.messageId);
          if (watch.received.has(id)) watch.duplicates++;
          else watch.received.add(id);
        }
      }
    } catch (error) {
      // Surfaced by waitUntilComplete: a dead subscriber must not pass for a lost delivery.
      this.failure = error;
    }
  }
}
