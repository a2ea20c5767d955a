import { randomUUID } from "node:crypto";
import * as net from "node:net";
import { QueueServiceClient } from "@azure/storage-queue";
import { freePort } from "../../dev/ports";
import { type RunningHost, startHost } from "../../dev/stack";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import { FUNCTION_KEY, MASTER_KEY, sharedStandIns } from "../support/stand-ins-env";
import { TEST_ENCRYPTION_KEY } from "../support/test-host";

// The local host starts its queue triggers after its first answer (or shortly after listening when
// no request comes), so loading the queue SDK does not hold up a cold host's first request. These
// tests try to keep the triggers from ever starting: no request at all, and a first request that
// never finishes. Either way the queue must be polled.

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hosts: RunningHost[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

/** A queue holding one message the trigger must poison at once (not base64), before any host runs. */
async function queueWithPoisonPill(): Promise<{ name: string; poisoned: () => Promise<number> }> {
  const service = QueueServiceClient.fromConnectionString(sharedStandIns().storageConnectionString);
  const name = `start-${randomUUID().slice(0, 8)}`;
  await service.getQueueClient(name).create();
  await service.getQueueClient(name).sendMessage("%% not base64 %%");
  const poison = service.getQueueClient(`${name}-poison`);
  return {
    name,
    poisoned: async () => {
      if (!(await poison.exists())) return 0;
      return (await poison.getProperties()).approximateMessagesCount ?? 0;
    },
  };
}

function hostOn(port: number, queueName: string): Promise<RunningHost> {
  const { cosmosEndpoint, storageConnectionString } = sharedStandIns();
  return startHost({
    settings: {
      COSMOS_ENDPOINT: cosmosEndpoint,
      COSMOS_KEY: COSMOS_EMULATOR_KEY,
      COSMOS_DISABLE_TLS_VERIFICATION: "true",
      COSMOS_DATABASE: `start-${randomUUID().slice(0, 8)}`,
      AzureWebJobsStorage: storageConnectionString,
      TWIN_EVENTS_QUEUE: queueName,
      SECRETS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      AUTH_MODE: "keys",
    },
    port,
    keys: { functionKey: FUNCTION_KEY, masterKey: MASTER_KEY },
    queues: { maxPollingIntervalMs: 250, visibilityTimeoutSeconds: 1 },
    log: () => undefined,
  });
}

async function waitForPoisoned(poisoned: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await poisoned()) < 1) {
    if (Date.now() > deadline) throw new Error("the trigger never took the message off its queue");
    await sleep(100);
  }
}

it("polls its queue though no request ever comes", async () => {
  const queue = await queueWithPoisonPill();
  hosts.push(await hostOn(0, queue.name));
  await waitForPoisoned(queue.poisoned);
});

it("polls its queue though its first request never finishes", async () => {
  const queue = await queueWithPoisonPill();
  const port = await freePort();
  const starting = hostOn(port, queue.name);
  // The first request: a head promising a body that never comes, sent as soon as the port opens.
  for (;;) {
    const socket = await new Promise<net.Socket | undefined>((resolve) => {
      const attempt = net.connect(port, "127.0.0.1", () => resolve(attempt));
      attempt.once("error", () => resolve(undefined));
    });
    if (socket) {
      sockets.push(socket);
      socket.write(
        "PUT /authenticationProfiles/never-ends?api-version=2021-01-01 HTTP/1.1\r\nHost: x\r\n" +
          `x-functions-key: ${FUNCTION_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
      );
      break;
    }
    await sleep(5);
  }
  hosts.push(await starting);
  await waitForPoisoned(queue.poisoned);
  expect(sockets[0]?.destroyed).toBe(false);
});
