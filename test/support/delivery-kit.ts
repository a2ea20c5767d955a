import { randomUUID } from "node:crypto";
import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import { QueueClient } from "@azure/storage-queue";
import { localDeadLetterSasUrl } from "../../dev/stand-ins/dead-letter-sas";
import { type RunningServiceBus, startServiceBusStandIn } from "../../dev/stand-ins/service-bus";
import { poisonQueueName } from "../../src/common/poison-queue";
import type { DeliveryEndpoint } from "../../src/endpoints/endpoint-service";
import { sharedStandIns } from "./stand-ins-env";
import { startTestHost, type TestHost } from "./test-host";

/** What tests of event delivery share: endpoints, ingest, and watching subscribers, blobs and queues. */
export function twinsInstance(name: string): string {
  return `/subscriptions/00000000-0000-0000-0000-0000000000aa/resourceGroups/delivery-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${name}`;
}

export function cloudEvent(id: string, data: unknown = { id }) {
  return { id, source: "/twins/test", specversion: "1.0" as const, type: "Twin.Update", data };
}

export async function createEndpoint(
  host: TestHost,
  instance: string,
  name: string,
  body: { primary: string; secondary: string; deadLetter?: string },
): Promise<void> {
  const response = await host.request(`${instance}/endpoints/${name}`, {
    method: "PUT",
    body: JSON.stringify({
      queuePrimaryConnectionString: body.primary,
      queueSecondaryConnectionString: body.secondary,
      ...(body.deadLetter !== undefined && { deadLetterStorageSecret: body.deadLetter }),
    }),
  });
  if (response.status !== 201)
    throw new Error(`endpoint ${name}: ${response.status} ${await response.text()}`);
}

export async function ingest(host: TestHost, instance: string, events: unknown[]): Promise<void> {
  const response = await host.request(`${instance}/events`, {
    method: "POST",
    body: JSON.stringify(events),
    headers: { "content-type": "application/cloudevents-batch+json" },
  });
  if (response.status !== 202) throw new Error(`ingest: ${response.status} ${await response.text()}`);
}

/** A connection string to the stand-in's topic that cannot connect: the port is closed. */
export function unreachableConnectionString(closedPort: number, topic: string): string {
  return `Endpoint=sb://127.0.0.1:${closedPort}/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true;EntityPath=${topic}`;
}

export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 60_000,
  what = "condition",
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A subscriber on a topic of the stand-in, collecting (and completing) everything it receives. */
export class Subscriber {
  readonly received: ServiceBusReceivedMessage[] = [];
  private readonly client: ServiceBusClient;
  private readonly closeSubscription: () => Promise<void>;

  constructor(
    serviceBus: RunningServiceBus,
    topic: string,
    subscription = `sub-${randomUUID().slice(0, 6)}`,
  ) {
    serviceBus.ensureSubscription(topic, subscription);
    this.client = new ServiceBusClient(serviceBus.connectionString());
    const receiver = this.client.createReceiver(topic, subscription);
    const handle = receiver.subscribe(
      {
        processMessage: async (message) => {
          this.received.push(message);
        },
        processError: async () => undefined,
      },
      { autoCompleteMessages: true },
    );
    this.closeSubscription = async () => {
      await handle.close();
      await receiver.close();
    };
  }

  ids(): string[] {
    return this.received.map((message) => String(message.messageId));
  }

  async close(): Promise<void> {
    await this.closeSubscription();
    await this.client.close();
  }
}

/** The instance of the endpoints deadLetterEndpoint makes, unless given another. */
export const DEAD_LETTER_INSTANCE =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/a";

/**
 * An endpoint as delivery holds it, for the dead-letter writer and redelivery alone: its dead
 * letters go to `sasUrl`; its Service Bus connection strings are never used.
 */
export function deadLetterEndpoint(
  sasUrl: string,
  name = "ep",
  instance = DEAD_LETTER_INSTANCE,
): DeliveryEndpoint {
  return {
    id: `${instance}/endpoints/${name}`,
    name,
    topic: "t",
    sendTo: [{ connectionString: "unused" }, { connectionString: "unused" }],
    deadLetter: { sasUrl },
  };
}

/** A KeyBased delivery endpoint's connection string (0: primary, 1: secondary), as the store opened it. */
export function connectionOf(endpoint: DeliveryEndpoint, which: 0 | 1 = 0): string | undefined {
  const target = endpoint.sendTo?.[which];
  return target && "connectionString" in target ? target.connectionString : undefined;
}

/** A KeyBased delivery endpoint's dead-letter SAS URL, when it has one the deployment admits. */
export function sasUrlOf(endpoint: DeliveryEndpoint): string | undefined {
  const target = endpoint.deadLetter;
  return target && "sasUrl" in target ? target.sasUrl : undefined;
}

/** A SAS URL of the shared Azurite's, through a relay listening on `port` instead. */
export function sasUrlThrough(sasUrl: string, port: number): string {
  const url = new URL(sasUrl);
  url.port = String(port);
  return url.toString();
}

export async function deadLetterUrl(container = `dead-${randomUUID().slice(0, 8)}`): Promise<string> {
  const blobEndpoint = /BlobEndpoint=([^;]+)/.exec(sharedStandIns().storageConnectionString)?.[1] as string;
  return localDeadLetterSasUrl(blobEndpoint, container);
}

/** The blobs of a dead-letter container (named by its SAS URL), with metadata and parsed bodies. */
export async function listBlobs(
  sasUrl: string,
): Promise<{ name: string; metadata: Record<string, string>; body: unknown }[]> {
  const containerName = new URL(sasUrl).pathname.split("/").pop() as string;
  return blobsOf(
    BlobServiceClient.fromConnectionString(sharedStandIns().storageConnectionString).getContainerClient(
      containerName,
    ),
  );
}

/** The blobs of a container, with metadata and parsed bodies. */
export async function blobsOf(
  container: ContainerClient,
): Promise<{ name: string; metadata: Record<string, string>; body: unknown }[]> {
  const blobs = [];
  for await (const item of container.listBlobsFlat({ includeMetadata: true })) {
    const download = await container.getBlobClient(item.name).downloadToBuffer();
    blobs.push({
      name: item.name,
      metadata: item.metadata ?? {},
      body: JSON.parse(download.toString("utf8")),
    });
  }
  return blobs;
}

/** Up to 32 messages of a queue of the shared Azurite, decoded from base64 JSON (and left in place). */
export async function queuedMessages<T = Record<string, unknown>>(queueName: string): Promise<T[]> {
  const queue = new QueueClient(sharedStandIns().storageConnectionString, queueName);
  if (!(await queue.exists())) return [];
  const { peekedMessageItems } = await queue.peekMessages({ numberOfMessages: 32 });
  return peekedMessageItems.map((item) =>
    JSON.parse(Buffer.from(item.messageText, "base64").toString("utf8")),
  );
}

/** The ids of the events of a twin-events queue's messages, in queue order. */
export async function queuedEventIds(queueName: string): Promise<string[]> {
  const messages = await queuedMessages<{ events: { id: string }[] }>(queueName);
  return messages.flatMap((message) => message.events.map((event) => event.id));
}

/** Everything on the service's poison queue, decoded (and left in place). */
export async function poisonRecords(host: TestHost): Promise<Record<string, unknown>[]> {
  return queuedMessages(poisonQueueName(host.config.TWIN_EVENTS_QUEUE));
}

/** Retries in seconds, not minutes, so delivery tests do not wait on production timings. */
export const QUICK_DELIVERY_SETTINGS: Record<string, string> = {
  DELIVERY_MAX_ATTEMPTS: "3",
  DELIVERY_BACKOFF_BASE_SECONDS: "1",
  DELIVERY_BACKOFF_CAP_SECONDS: "1",
  DELIVERY_SEND_TIMEOUT_MS: "3000",
  ENDPOINT_CACHE_SECONDS: "0",
};

/** Events counted dead-lettered by the invocations these hosts logged (from `fromLog[i]` on, per host). */
export function deadLetteredSince(hosts: TestHost[], fromLog: number[] = []): number {
  return hosts
    .flatMap((host, index) => host.logs.slice(fromLog[index] ?? 0))
    .map((entry) => /^twin events: .*deadLettered=(\d+)/.exec(entry.message)?.[1])
    .reduce((sum, count) => sum + Number(count ?? 0), 0);
}

/**
 * A Service Bus stand-in and hosts running the queue trigger against it (one by default; several
 * share one database and so one event queue, as a scaled-out app), and the subscribers a test opens.
 */
export class DeliveryStack {
  private readonly subscribers: Subscriber[] = [];

  private constructor(
    readonly serviceBus: RunningServiceBus,
    readonly hosts: TestHost[],
  ) {}

  /** The first host. */
  get host(): TestHost {
    return this.hosts[0] as TestHost;
  }

  /** `settings` change the quick delivery settings (or add others). */
  static async start(settings: Record<string, string> = {}, hostCount = 1): Promise<DeliveryStack> {
    return DeliveryStack.startOn(await startServiceBusStandIn({ port: 0 }), settings, hostCount);
  }

  /** The same, on a Service Bus stand-in started by the caller (closed with the stack). */
  static async startOn(
    serviceBus: RunningServiceBus,
    settings: Record<string, string> = {},
    hostCount = 1,
  ): Promise<DeliveryStack> {
    const all = { ...QUICK_DELIVERY_SETTINGS, ...settings };
    const database = `delivery-${randomUUID().slice(0, 8)}`;
    const hosts = [await startTestHost(all, database, { queueTriggers: {} })];
    while (hosts.length < hostCount) {
      hosts.push(await startTestHost(all, database, { queueTriggers: {}, createContainers: false }));
    }
    return new DeliveryStack(serviceBus, hosts);
  }

  /** A subscriber on the topic, closed with the stack. */
  subscribe(topic: string): Subscriber {
    const subscriber = new Subscriber(this.serviceBus, topic);
    this.subscribers.push(subscriber);
    return subscriber;
  }

  /** Where each host's log is now, for deadLetteredSince. */
  logMarks(): number[] {
    return this.hosts.map((host) => host.logs.length);
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscribers.map((subscriber) => subscriber.close()));
    await Promise.all(this.hosts.map((host) => host.stop()));
    await this.serviceBus.close();
  }
}
