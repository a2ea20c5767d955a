import { randomUUID } from "node:crypto";
import * as path from "node:path";
import { QueueServiceClient } from "@azure/storage-queue";
import { type RunningServiceBus, startServiceBusStandIn } from "../../dev/stand-ins/service-bus";
import { EventPublisher } from "../../src/events/event-publisher";
import { Subscriber, twinsInstance, waitUntil } from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";

// The delivery bench's bare forwarder, a process of its own (built into dist/bench by the global
// setup): it takes what the service's own publisher put on a storage queue, sends every event
// once to each of its topics, and leaves the queue empty.
const { spawnDeliveryChild } = require(
  path.join(__dirname, "..", "..", "dist", "bench", "delivery-child.js"),
) as typeof import("../../bench/delivery-child");
const { sizedEvents } = require(
  path.join(__dirname, "..", "..", "dist", "bench", "delivery.js"),
) as typeof import("../../bench/delivery");

let serviceBus: RunningServiceBus;
beforeAll(async () => {
  serviceBus = await startServiceBusStandIn({ port: 0 });
});
afterAll(async () => {
  await serviceBus.close();
});

it("moves every event from the storage queue to each topic, once, and deletes the messages", async () => {
  const storage = QueueServiceClient.fromConnectionString(sharedStandIns().storageConnectionString);
  const queue = storage.getQueueClient(`forwarder-${randomUUID().slice(0, 8)}`);
  await queue.create();
  const events = sizedEvents(50, `fwd-${randomUUID().slice(0, 6)}`, 1024);
  const publisher = new EventPublisher(queue);
  for (let at = 0; at < events.length; at += 20)
    await publisher.publish(twinsInstance("forwarder"), events.slice(at, at + 20));
  const topics = ["forwarder-a", "forwarder-b"];
  const subscribers = topics.map((topic) => new Subscriber(serviceBus, topic));
  const forwarder = await spawnDeliveryChild("bare-forwarder-main.js", {
    FORWARDER_STORAGE: sharedStandIns().storageConnectionString,
    FORWARDER_SERVICE_BUS: serviceBus.connectionString(),
  });
  try {
    await forwarder.start({ queue: queue.name, topics });
    await waitUntil(
      () => subscribers.every((subscriber) => subscriber.received.length >= 50),
      30_000,
      "50 events on each topic",
    );
    await forwarder.stop();
    const ids = events.map((event) => event.id);
    for (const subscriber of subscribers) expect(subscriber.ids().sort()).toEqual([...ids].sort());
    expect((await queue.getProperties()).approximateMessagesCount).toBe(0);
  } finally {
    await forwarder.close();
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
    await queue.delete();
  }
});
