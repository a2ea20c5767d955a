import { ServiceBusClient, type ServiceBusMessage } from "@azure/service-bus";
import { QueueServiceClient } from "@azure/storage-queue";
import { toServiceBusMessage } from "../src/delivery/service-bus-message";
import type { CloudEvent } from "../src/events/cloud-event";
import { EventPublisher } from "../src/events/event-publisher";
import { requestTraceContext, withTraceContext } from "../src/events/trace-context";
import { type Arrivals, countArrivals } from "./arrivals";
import { type DeliveryChild, spawnDeliveryChild } from "./delivery-child";
import type { BenchStack } from "./local-stack";
import { processCpuMicros } from "./process-cpu";
import { type Rounds, runRounds } from "./rounds";
import { benchInstance, createEventRoute, createTopicEndpoint, makeEvents } from "./twin-events";

/** filters: the service's, one event route per endpoint (none: no routes, every endpoint gets every event). */
export type DeliveryPoint = { events: number; eventBytes: number; endpoints: number; filters?: string[] };
/**
 * A timed run, from the child's start until every subscriber has every event: events/s, CPU ms per
 * 1,000 events of the measured process, and the bench process's CPU over the run in cores (the
 * subscribers: outside both, as are the stack's idle host process, Azurite, the broker, the relay).
 */
export type Run = { eventsPerSecond: number; cpuPerThousand: number; driverCores: number };
/** perWrite: events per queue write, one ingest request's (BENCH_REQUEST_EVENTS). */
export type DeliveryDrive = Record<Path, DeliveryChild> & {
  stack: BenchStack;
  perWrite: number;
};
/** At most budgetMb of events per size point (BENCH_DELIVERY_MB); perEventEvents for the one-by-one baseline. */
export type DeliverySizes = Record<
  "events" | "perEventEvents" | "requestEvents" | "rounds" | "budgetMb",
  number
> &
  Record<"sizesKb" | "endpoints", number[]>;
export type PointRuns = DeliveryPoint & { service: Run; forwarder: Run };
export type DeliveryRound = { points: PointRuns[]; perEventPerSecond: number };
export type DeliveryResults = { sizes: DeliverySizes; rounds: Rounds<DeliveryRound> };
export type Path = "service" | "forwarder";
let runs = 0;

/** The service goes first in odd rounds, the forwarder in even ones: neither always meets the other's garbage. */
export const serviceFirst = (round: number) => round % 2 === 1;

/** `count` bench events of about `bytes` bytes of JSON each (a twin patch of as many operations as it takes). */
export function sizedEvents(count: number, prefix: string, bytes: number): CloudEvent[] {
  return makeEvents(count, prefix).map((event, index) => {
    const patch = [...(event.data as { patch: object[] }).patch];
    for (let i = 0, size = JSON.stringify(event).length; size < bytes; i++) {
      patch.push({
        op: "replace",
        path: `/sensor${i % 50}/value`,
        value: ((index * 31 + i * 17) % 1000) / 10,
      });
      size += JSON.stringify(patch.at(-1)).length + 1;
    }
    return { ...event, data: { ...(event.data as object), patch } };
  });
}

/** Events on a fresh queue as ingest writes them: the service's EventPublisher, a write per request's events. */
async function fill(drive: DeliveryDrive, name: string, instance: string, events: CloudEvent[]) {
  const storage = QueueServiceClient.fromConnectionString(drive.stack.settings.AzureWebJobsStorage as string);
  const queue = storage.getQueueClient(name);
  await Promise.all([queue.create(), storage.getQueueClient(`${name}-poison`).create()]);
  const publisher = new EventPublisher(queue);
  for (let at = 0; at < events.length; at += drive.perWrite) {
    const trace = requestTraceContext(null, null);
    const write = events.slice(at, at + drive.perWrite);
    await publisher.publish(
      instance,
      write.map((event) => withTraceContext(event, trace)),
    );
  }
  return queue;
}

const until = async (subscribers: Arrivals[], count: number) =>
  Math.max(...(await Promise.all(subscribers.map((subscriber) => subscriber.until(count)))));

/**
 * One path: fresh topics with a subscriber each (the service: a fresh instance, an endpoint per
 * topic, and a route per endpoint when the point has filters); an untimed warm-up job of 10 events
 * (links open, endpoints and routes cached); the events on a fresh queue, untimed; then timed. The
 * child's CPU is read once it has stopped, its deletes done.
 */
async function runPath(drive: DeliveryDrive, path: Path, point: DeliveryPoint, events: CloudEvent[]) {
  const name = `d${++runs}-${path.slice(0, 3)}`;
  const topics = Array.from({ length: point.endpoints }, (_, index) => `${name}-${index}`);
  const instance = benchInstance(name);
  for (const [index, topic] of path === "service" ? topics.entries() : []) {
    await createTopicEndpoint(drive.stack, instance, `end-${index}`, topic);
    const filter = point.filters?.[index];
    if (filter !== undefined)
      await createEventRoute(drive.stack, instance, `route-${index}`, `end-${index}`, filter);
  }
  const child = drive[path];
  const connection = drive.stack.serviceBus.connectionString();
  const subscribers = await Promise.all(topics.map((topic) => countArrivals(connection, topic)));
  try {
    await fill(drive, `${name}-warm`, instance, sizedEvents(10, `${name}-w`, point.eventBytes));
    await child.start({ queue: `${name}-warm`, topics });
    await until(subscribers, 10);
    await child.stop();
    const queue = await fill(drive, name, instance, events);
    const cpuMs = () => [child.pid, process.pid].map((pid) => processCpuMicros(pid) / 1000);
    const [childBefore = 0, benchBefore = 0] = cpuMs();
    const started = performance.now();
    await child.start({ queue: name, topics });
    const finished = await until(subscribers, 10 + events.length);
    await child.stop();
    const [childAfter = 0, benchAfter = 0] = cpuMs();
    const left = (await queue.getProperties()).approximateMessagesCount ?? 0;
    if (left > 0) throw new Error(`${path}: ${left} messages left on ${name}`);
    return {
      eventsPerSecond: (events.length * 1000) / (finished - started),
      cpuPerThousand: ((childAfter - childBefore) * 1000) / events.length,
      driverCores: (benchAfter - benchBefore) / (performance.now() - started),
    };
  } finally {
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
  }
}

/**
 * The service (its host's queue trigger and function, a process of its own) and the bare forwarder
 * (a process of its own) delivering the same events, already on a storage queue in the service's
 * format, to `endpoints` topics through the same relay and broker to the same kind of subscriber.
 */
export function measureDelivery(drive: DeliveryDrive, point: DeliveryPoint, serviceGoesFirst = true) {
  const paths: Path[] = serviceGoesFirst ? ["service", "forwarder"] : ["forwarder", "service"];
  return measureEach(
    drive,
    point,
    paths.map((path) => [path, path, point]),
  );
}

/**
 * Timed runs of the same events (`point.events` of `point.eventBytes`), one after the other in
 * the order given, each a label, its path and its point (topics, endpoints, routes).
 */
export async function measureEach<Label extends string>(
  drive: DeliveryDrive,
  point: DeliveryPoint,
  order: [Label, Path, DeliveryPoint][],
): Promise<Record<Label, Run>> {
  const events = sizedEvents(point.events, `d${runs}`, point.eventBytes);
  const result: Partial<Record<Label, Run>> = {};
  for (const [label, path, pointOf] of order) result[label] = await runPath(drive, path, pointOf, events);
  return result as Record<Label, Run>;
}

/** One awaited send per event (1 KB events) on an open link, until the subscriber has them. */
async function perEventPerSecond(stack: BenchStack, count: number): Promise<number> {
  const topic = `d${++runs}-one-by-one`;
  const client = new ServiceBusClient(stack.serviceBus.connectionString());
  const subscriber = await countArrivals(stack.serviceBus.connectionString(), topic);
  try {
    const sender = client.createSender(topic);
    const [opener, ...messages] = sizedEvents(count + 1, topic, 1024).map(toServiceBusMessage);
    await sender.sendMessages(opener as ServiceBusMessage);
    const started = performance.now();
    for (const message of messages) await sender.sendMessages(message);
    return (count * 1000) / ((await subscriber.until(count + 1)) - started);
  } finally {
    await subscriber.close();
    await client.close();
  }
}

/** A round's points: each size at 1 endpoint, each endpoint count at 1 KB (1 KB at 1 endpoint once). */
export function deliveryPoints({ events, sizesKb, endpoints, budgetMb }: DeliverySizes): DeliveryPoint[] {
  const most = (kb: number) => Math.min(events, Math.max(100, Math.floor((budgetMb * 1024) / kb)));
  const kbs = [...new Set([1, ...sizesKb])];
  const bySize = kbs.map((kb) => ({ events: most(kb), eventBytes: kb * 1024, endpoints: 1 }));
  const byEndpoints = endpoints
    .filter((n) => n !== 1)
    .map((n) => ({ events, eventBytes: 1024, endpoints: n }));
  return [...bySize, ...byEndpoints];
}

/**
 * The delivery part: the host and the forwarder as child processes on `stack` (behind its relay);
 * one untimed measurement first (both children's code compiled, the broker warm), then rounds of
 * every point, the paths taking turns going first (serviceFirst), and the one-by-one baseline.
 */
export function benchDelivery(stack: BenchStack, sizes: DeliverySizes): Promise<DeliveryResults> {
  return withDeliveryChildren(stack, sizes.requestEvents, async (drive) => {
    await measureDelivery(drive, { events: Math.min(sizes.events, 1000), eventBytes: 1024, endpoints: 1 });
    const rounds = await runRounds(sizes.rounds, async (round) => {
      const points: PointRuns[] = [];
      for (const point of deliveryPoints(sizes))
        points.push({ ...point, ...(await measureDelivery(drive, point, serviceFirst(round))) });
      return { points, perEventPerSecond: await perEventPerSecond(stack, sizes.perEventEvents) };
    });
    return { sizes, rounds };
  });
}

/** The host and the forwarder as child processes on `stack`, `perWrite` events a queue write; both closed after `use`. */
export async function withDeliveryChildren<T>(
  stack: BenchStack,
  perWrite: number,
  use: (drive: DeliveryDrive) => Promise<T>,
): Promise<T> {
  const service = await spawnDeliveryChild("delivery-host-main.js", stack.settings);
  const forwarder = await spawnDeliveryChild("bare-forwarder-main.js", {
    FORWARDER_STORAGE: stack.settings.AzureWebJobsStorage,
    FORWARDER_SERVICE_BUS: stack.serviceBus.connectionString(),
  }).catch((error: unknown) => service.close().then(() => Promise.reject(error)));
  try {
    return await use({ stack, service, forwarder, perWrite });
  } finally {
    await Promise.all([service.close(), forwarder.close()]);
  }
}
