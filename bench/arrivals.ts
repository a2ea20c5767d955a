import { randomUUID } from "node:crypto";
import { ServiceBusClient } from "@azure/service-bus";
import { positiveInteger } from "./env";

export interface Arrivals {
  /** Resolves with the performance.now() at which `expected` messages had arrived; rejects past the deadline. */
  until(expected: number): Promise<number>;
  close(): Promise<void>;
}

/** How long a benchmark waits for deliveries before it gives up (the loop must end). */
const TIMEOUT_MS = positiveInteger("BENCH_TIMEOUT_SECONDS", 120) * 1000;

/**
 * Counts what arrives on a new subscription of `topic` on the stand-in, in large receives so the
 * subscriber is never what limits a figure. The subscription exists once this resolves (the first
 * receive attaches the link, which creates it), so nothing sent afterwards is missed.
 */
export async function countArrivals(connectionString: string, topic: string): Promise<Arrivals> {
  const client = new ServiceBusClient(connectionString);
  const receiver = client.createReceiver(topic, `bench-${randomUUID().slice(0, 6)}`, {
    receiveMode: "receiveAndDelete",
  });
  let received = (await receiver.receiveMessages(1, { maxWaitTimeInMs: 100 })).length;
  /** When each count was reached. */
  const counts: [received: number, at: number][] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const batch = await receiver.receiveMessages(1000, { maxWaitTimeInMs: 20 });
      if (batch.length === 0) continue;
      received += batch.length;
      counts.push([received, performance.now()]);
    }
  })();
  return {
    async until(expected) {
      const deadline = performance.now() + TIMEOUT_MS;
      while (received < expected) {
        if (performance.now() > deadline)
          throw new Error(`${topic}: ${received} of ${expected} messages after ${TIMEOUT_MS / 1000} s`);
        await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 5))]);
      }
      return counts.find(([count]) => count >= expected)?.[1] ?? performance.now();
    },
    async close() {
      stopped = true;
      await loop.catch(() => undefined);
      await receiver.close();
      await client.close();
    },
  };
}
