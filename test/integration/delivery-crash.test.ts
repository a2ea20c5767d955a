import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { freePort } from "../../dev/ports";
import { type RunningServiceBus, startServiceBusStandIn } from "../../dev/stand-ins/service-bus";
import {
  cloudEvent,
  createEndpoint,
  ingest,
  Subscriber,
  twinsInstance,
  waitUntil,
} from "../support/delivery-kit";
import { startTestHost, type TestHost } from "../support/test-host";

// The local host killed (SIGKILL) while it delivers, then started again: every ingested event
// still reaches the subscriber. Delivery is at least once, so repeats are allowed; losses are not.
const ROOT = path.join(__dirname, "..", "..");

let serviceBus: RunningServiceBus;
let api: TestHost;
let subscriber: Subscriber;
const children: ChildProcess[] = [];

/** The built local host (what `npm start` runs) as a process of its own, on the test's database. */
async function startHostProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, "dist", "dev", "local-host-main.js")], {
    env: {
      ...process.env,
      ...api.appSettings,
      PORT: String(await freePort()),
      FUNCTION_KEY: "crash-test-function-key",
      MASTER_KEY: "crash-test-master-key",
      LOCAL_QUEUE_LOCK_SECONDS: "3",
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitUntil(() => output.includes("listening on"), 60_000, `the host to start: ${output}`);
  return child;
}

beforeAll(async () => {
  serviceBus = await startServiceBusStandIn({ port: 0 });
  // This host serves HTTP (ingest, endpoints) but runs no queue trigger: the child process does.
  api = await startTestHost({ DELIVERY_BACKOFF_BASE_SECONDS: "1", DELIVERY_BACKOFF_CAP_SECONDS: "1" });
  subscriber = new Subscriber(serviceBus, "crash-topic");
});

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await subscriber.close();
  await api.stop();
  await serviceBus.close();
});

it("delivers every ingested event after the host is killed mid-stream and restarted", async () => {
  const instance = twinsInstance("crash");
  const connection = serviceBus.connectionString("crash-topic");
  await createEndpoint(api, instance, "crash", { primary: connection, secondary: connection });
  const events = Array.from({ length: 600 }, (_, index) => cloudEvent(`crash-${index}`, { index }));
  const batches = Array.from({ length: 12 }, (_, index) => events.slice(index * 50, index * 50 + 50));

  // Half the events go in while the first host delivers; it is killed as soon as any arrive.
  const first = await startHostProcess();
  for (const batch of batches.slice(0, 6)) await ingest(api, instance, batch);
  await waitUntil(() => subscriber.received.length > 0, 60_000, "the first deliveries");
  first.kill("SIGKILL");
  await new Promise((resolve) => first.once("exit", resolve));
  const deliveredBeforeCrash = new Set(subscriber.ids()).size;
  // The other half arrive while no host runs.
  for (const batch of batches.slice(6)) await ingest(api, instance, batch);

  await startHostProcess();
  const expected = new Set(events.map((event) => event.id));
  await waitUntil(
    () => [...expected].every((id) => subscriber.ids().includes(id)),
    120_000,
    "every event after the restart",
  );
  expect(new Set(subscriber.ids())).toEqual(expected);
  expect(deliveredBeforeCrash).toBeGreaterThan(0);
});
