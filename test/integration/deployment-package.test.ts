import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { QueueClient } from "@azure/storage-queue";
import { packageFiles, packageSize, runWorker } from "../../bench/deployment-package";
import type { WorkerReport, WorkerStep } from "../../bench/functions-worker-main";
import type { RunningServiceBus } from "../../dev/stand-ins/service-bus";
import { startServiceBusStandIn } from "../../dev/stand-ins/service-bus";
import { cloudEvent, deadLetterUrl, Subscriber, twinsInstance, waitUntil } from "../support/delivery-kit";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { startTestHost, type TestHost } from "../support/test-host";

// The deployment package as azd zips it (infra/scripts/stage-package.js), loaded as the Functions
// worker loads it (dev/functions-worker.ts) in a fresh process, against the stand-ins: what runs in
// Azure is index.js and the dependency bundles, never dist/ or the repository's node_modules.
const ROOT = path.join(__dirname, "..", "..");
const run = promisify(execFile);
jest.setTimeout(120_000);

const { stagePackage } = require(path.join(ROOT, "infra", "scripts", "stage-package.js")) as {
  stagePackage(options: { stage: string; quiet: boolean }): Promise<{ bundled: string[] }>;
};

/** The worker stand-in on `root` in a fresh node with `settings` as its environment: its report. */
async function worker(
  root: string,
  settings: Record<string, string>,
  steps: WorkerStep[] = [],
): Promise<WorkerReport> {
  const { APPLICATIONINSIGHTS_CONNECTION_STRING: _off, ...inherited } = process.env;
  return (await runWorker(root, { ...inherited, ...settings }, steps)).report;
}

const JSON_BODY = { "content-type": "application/json" };

let stage: string;
let bundled: string[];
let host: TestHost;
let serviceBus: RunningServiceBus;
let subscriber: Subscriber | undefined;

beforeAll(async () => {
  stage = path.join(tempDir("deployment-package-"), "package");
  ({ bundled } = await stagePackage({ stage, quiet: true }));
  // A host of the usual kind only to create the database and its containers, and for its settings.
  host = await startTestHost();
  serviceBus = await startServiceBusStandIn({ port: 0 });
});

afterAll(async () => {
  await subscriber?.close();
  await host?.stop();
  await serviceBus?.close();
  removeTempDirs();
});

describe("the staged deployment package", () => {
  it("is index.js, one bundle per dependency, host.json and a package.json with nothing to install", () => {
    const files = packageFiles(stage);
    const dependencyBundles = bundled.flatMap((name) => [
      `node_modules/${name}/index.js`,
      `node_modules/${name}/package.json`,
    ]);
    expect(files.sort()).toEqual(
      ["THIRD-PARTY-NOTICES.txt", "host.json", "index.js", "package.json", ...dependencyBundles].sort(),
    );
    const manifest = JSON.parse(readFileSync(path.join(stage, "package.json"), "utf8"));
    expect(manifest).toMatchObject({ main: "index.js" });
    expect(manifest.dependencies).toBeUndefined();
    expect(readFileSync(path.join(stage, "host.json"), "utf8")).toBe(
      readFileSync(path.join(ROOT, "host.json"), "utf8"),
    );
    // Every package bundled is named with its licence; the Azure SDKs' is MIT.
    const notices = readFileSync(path.join(stage, "THIRD-PARTY-NOTICES.txt"), "utf8");
    for (const name of ["@azure/functions", "zod", ...bundled]) expect(notices).toContain(`${name}@`);
  });

  it("zips to at most 10 MB (the sum of its files deflated, as a zip stores them)", () => {
    // bench/deployment-package.ts's measure: the bench reports the same figures against this goal.
    const { zippedMb, unpackedMb } = packageSize(stage);
    expect(zippedMb).toBeLessThanOrEqual(10);
    expect(unpackedMb).toBeLessThanOrEqual(20);
  });

  it("registers the same functions as the unbundled build, and loads no dependency bundle at start", async () => {
    const settings = host.appSettings;
    const [staged, unbundled] = await Promise.all([worker(stage, settings), worker(ROOT, settings)]);
    expect(staged.programmingModel).toMatch(/^@azure\/functions@4\./);
    expect(staged.registered.length).toBeGreaterThan(40);
    expect(staged.registered).toEqual(unbundled.registered);
    expect(staged.registered).toContain("twinEvents-deliver");
    // The worker stand-in reports the package's own files it loaded: the SDKs wait for first use.
    expect(staged.loadedAtStart).toEqual(["index.js"]);
  });

  it("each dependency bundle exports what its package exports", async () => {
    const script = `
const path = require("node:path");
const [stage, root, names] = process.argv.slice(1);
const keysOf = (exports) => Object.keys(exports).filter((key) => key !== "default" && key !== "__esModule").sort();
const out = {};
for (const name of JSON.parse(names)) {
  out[name] = {
    staged: keysOf(require(path.join(stage, "node_modules", name, "index.js"))),
    original: keysOf(require(require.resolve(name, { paths: [root] }))),
  };
}
process.stdout.write(JSON.stringify(out));`;
    const { stdout } = await run(process.execPath, ["-e", script, stage, ROOT, JSON.stringify(bundled)], {
      maxBuffer: 16 * 1024 * 1024,
    });
    const exports = JSON.parse(stdout) as Record<string, { staged: string[]; original: string[] }>;
    expect(Object.keys(exports).sort()).toEqual(bundled);
    for (const [name, { staged, original }] of Object.entries(exports)) {
      expect({ name, exports: staged }).toEqual({ name, exports: original });
    }
  });

  it("serves requests and delivers events through its bundles: Cosmos DB, Storage queues and blobs, Service Bus", async () => {
    const instanceName = `package-${randomUUID().slice(0, 8)}`;
    const instance = twinsInstance(instanceName);
    const [, subscriptionId, , resourceGroupName] = instance.split("/").filter(Boolean);
    const endpointParams = {
      subscriptionId: subscriptionId as string,
      resourceGroupName: resourceGroupName as string,
      instanceName,
      endpointName: "orders",
    };
    const base = "http://127.0.0.1:7071";
    const topic = `package-${randomUUID().slice(0, 8)}`;
    subscriber = new Subscriber(serviceBus, topic);
    const connection = serviceBus.connectionString(topic);
    const deadLetters = await deadLetterUrl();
    const event = cloudEvent(`event-${randomUUID()}`);

    const steps: WorkerStep[] = [
      {
        http: {
          name: "authenticationProfiles-put",
          method: "PUT",
          url: `${base}/authenticationProfiles/packaged`,
          params: { authenticationProfileName: "packaged" },
          headers: JSON_BODY,
          body: JSON.stringify({ authenticationProfileContent: '{"AllowDBUserOverride":"1"}' }),
        },
      },
      {
        http: {
          name: "authenticationProfiles-get",
          method: "GET",
          url: `${base}/authenticationProfiles/packaged`,
          params: { authenticationProfileName: "packaged" },
        },
      },
      {
        http: {
          name: "queueEndpoints-put",
          method: "PUT",
          url: `${base}${instance}/endpoints/orders`,
          params: endpointParams,
          headers: JSON_BODY,
          body: JSON.stringify({
            queuePrimaryConnectionString: connection,
            queueSecondaryConnectionString: connection,
            deadLetterStorageSecret: deadLetters,
          }),
        },
      },
      {
        http: {
          name: "twinEvents-ingest",
          method: "POST",
          url: `${base}${instance}/events`,
          params: { ...endpointParams, endpointName: "" },
          headers: { "content-type": "application/cloudevents+json" },
          body: JSON.stringify(event),
        },
      },
      {
        http: {
          name: "queueEndpoints-redeliverDeadLetters",
          method: "POST",
          url: `${base}${instance}/endpoints/orders/redeliverDeadLetters`,
          params: endpointParams,
        },
      },
    ];
    const first = await worker(stage, host.appSettings, steps);
    expect(first.steps.map((step) => step.error ?? step.http?.status)).toEqual([201, 200, 201, 202, 200]);
    expect(JSON.parse(first.steps[1]?.http?.body ?? "{}")).toMatchObject({
      authenticationProfileName: "packaged",
    });
    // What the steps sent, as counted in the app's process: a GET of a profile after the PUT (the
    // SDK's account read done) is one point read; no request carries a query (a SAS, a key).
    expect(first.steps[1]?.requests).toEqual([
      expect.stringMatching(/^GET 127\.0\.0\.1:\d+\/dbs\/[^/]+\/colls\/profiles\/docs\/packaged$/),
    ]);
    expect(first.steps.flatMap((step) => step.requests).filter((request) => request.includes("?"))).toEqual(
      [],
    );
    // The Cosmos DB SDK's bundle loaded; the Key Vault SDK it requires, apart, was never read.
    expect(first.loadedAtEnd).toContain("node_modules/@azure/cosmos/index.js");
    expect(first.loadedAtEnd).not.toContain("node_modules/@azure/keyvault-keys/index.js");
    expect(bundled).toContain("@azure/keyvault-keys");

    // The queue trigger, in a second fresh process: the message ingest put on the queue, as the host passes it.
    const queue = new QueueClient(
      host.appSettings.AzureWebJobsStorage as string,
      host.config.TWIN_EVENTS_QUEUE,
    );
    const { receivedMessageItems } = await queue.receiveMessages({ numberOfMessages: 1 });
    const message = receivedMessageItems[0];
    if (!message) throw new Error("ingest queued no message");
    const text = Buffer.from(message.messageText, "base64").toString("utf8");
    const second = await worker(stage, host.appSettings, [
      { queue: { name: "twinEvents-deliver", message: text } },
    ]);
    expect(second.steps[0]?.error).toBeUndefined();
    const topicSubscriber = subscriber;
    await waitUntil(() => topicSubscriber.received.length > 0, 30_000, "the event on the topic");
    expect(topicSubscriber.received.map((delivered) => (delivered.body as { id: string }).id)).toEqual([
      event.id,
    ]);
    await queue.deleteMessage(message.messageId, message.popReceipt);
  });
});
