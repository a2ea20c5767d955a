import * as path from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import { freePort } from "../../dev/ports";
import { type RunningAzurite, startAzurite } from "../../dev/stand-ins/azurite";
import { localDeadLetterSasUrl } from "../../dev/stand-ins/dead-letter-sas";
import { DEV_KEY, DEV_KEY_NAME } from "../../dev/stand-ins/service-bus";
import { type BuiltProcess, startBuiltProcess } from "../support/built-process";
import { cloudEvent, createEndpoint, ingest, twinsInstance, waitUntil } from "../support/delivery-kit";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { startTestHost, type TestHost } from "../support/test-host";

// Faults under delivery: the storage account (Azurite) restarted while events flow, and the
// Service Bus broker killed while the service sends. Every ingested event must still end on the
// topic: retried with backoff until the broker is back, none lost.
const TOPIC = "fault-topic";
const SUBSCRIPTION = "checker";

let dataDir: string;
let ports: { blob: number; queue: number; serviceBus: number; serviceBusTls: number };
let azurite: RunningAzurite;
let broker: BuiltProcess;
let host: TestHost;
const received = new Set<string>();
let receiving = true;
let receiveLoop: Promise<void>;

function startBroker(): Promise<BuiltProcess> {
  // The subscription exists from the start, so nothing sent before the checker attaches is lost.
  return startBuiltProcess(path.join("stand-ins", "service-bus", "main.js"), {
    SERVICEBUS_PORT: String(ports.serviceBus),
    // Its AMQPS listener too, or it takes 5671 and clashes with whatever else has it.
    SERVICEBUS_TLS_PORT: String(ports.serviceBusTls),
    SERVICEBUS_SUBSCRIPTIONS: `${TOPIC}/${SUBSCRIPTION}`,
  });
}

function startStorage(): Promise<RunningAzurite> {
  return startAzurite({ blobPort: ports.blob, queuePort: ports.queue, location: dataDir, stdio: "ignore" });
}

const connection = () =>
  `Endpoint=sb://127.0.0.1:${ports.serviceBus}/;SharedAccessKeyName=${DEV_KEY_NAME};SharedAccessKey=${DEV_KEY};UseDevelopmentEmulator=true;EntityPath=${TOPIC}`;

/** Receives (and removes) everything on the subscription, reconnecting whenever the broker goes away. */
async function checkLoop(): Promise<void> {
  while (receiving) {
    const client = new ServiceBusClient(connection(), { retryOptions: { maxRetries: 0, timeoutInMs: 2000 } });
    try {
      const receiver = client.createReceiver(TOPIC, SUBSCRIPTION, { receiveMode: "receiveAndDelete" });
      while (receiving) {
        for (const message of await receiver.receiveMessages(200, { maxWaitTimeInMs: 200 })) {
          received.add(String(message.messageId));
        }
      }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}

beforeAll(async () => {
  dataDir = tempDir("faults-azurite-");
  ports = {
    blob: await freePort(),
    queue: await freePort(),
    serviceBus: await freePort(),
    serviceBusTls: await freePort(),
  };
  azurite = await startStorage();
  broker = await startBroker();
  host = await startTestHost(
    {
      AzureWebJobsStorage: azurite.connectionString,
      DELIVERY_MAX_ATTEMPTS: "30",
      DELIVERY_BACKOFF_BASE_SECONDS: "1",
      DELIVERY_BACKOFF_CAP_SECONDS: "2",
      DELIVERY_SEND_TIMEOUT_MS: "3000",
      ENDPOINT_CACHE_SECONDS: "0",
    },
    undefined,
    { queueTriggers: { lockSeconds: 5 } },
  );
  receiveLoop = checkLoop();
});

afterAll(async () => {
  receiving = false;
  await receiveLoop;
  await host?.stop();
  await broker?.stop();
  await azurite?.stop();
  removeTempDirs();
});

/** Ingest with retries: while storage restarts, ingest answers 503 and a client tries again. */
async function ingestDurably(instance: string, events: unknown[]): Promise<void> {
  await waitUntil(
    async () => {
      try {
        await ingest(host, instance, events);
        return true;
      } catch {
        return false;
      }
    },
    60_000,
    "an ingest to be accepted",
  );
}

it("delivers every event through a storage restart and a broker killed mid-delivery", async () => {
  const instance = twinsInstance("faults");
  await createEndpoint(host, instance, "faulty", {
    primary: connection(),
    secondary: connection(),
    deadLetter: await localDeadLetterSasUrl(azurite.blobEndpoint, "dead-letters"),
  });
  const events = Array.from({ length: 300 }, (_, index) => cloudEvent(`fault-${index}`));
  const batch = (index: number) => events.slice(index * 50, index * 50 + 50);

  // Storage restarts while events flow: queue messages survive (on disk), nothing is dropped.
  await ingestDurably(instance, batch(0));
  await ingestDurably(instance, batch(1));
  await azurite.stop();
  azurite = await startStorage();
  await ingestDurably(instance, batch(2));
  await waitUntil(() => received.size >= 150, 90_000, "the first 150 events");

  // The broker dies while the service sends: deliveries fail and are retried until it is back.
  await ingestDurably(instance, batch(3));
  await broker.kill();
  await ingestDurably(instance, batch(4));
  await ingestDurably(instance, batch(5));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  broker = await startBroker();

  await waitUntil(() => received.size === events.length, 120_000, "every event after the faults");
  expect([...received].sort()).toEqual(events.map((event) => event.id).sort());
  const retried = host.logs.some((entry) => /twin events: .*retried=[1-9]/.test(entry.message));
  expect(retried).toBe(true);
});
