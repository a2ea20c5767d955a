import { writeFileSync } from "node:fs";
import * as path from "node:path";
import {
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import {
  AccountSASPermissions,
  generateAccountSASQueryParameters,
  QueueClient,
  StorageSharedKeyCredential as QueueKeyCredential,
} from "@azure/storage-queue";
import { DEV_ACCOUNT, DEV_ACCOUNT_KEY } from "../../dev/stand-ins/azurite";
import { httpsBlobServiceWithKey } from "../../dev/stand-ins/azurite-https";
import { localContainerSasUrl, localQueueServiceSasUrl } from "../../dev/stand-ins/local-storage-sas";
import { poisonQueueName } from "../../src/common/poison-queue";
import { closedPort } from "../support/closed-port";
import {
  cloudEvent,
  createEndpoint,
  DeliveryStack,
  deadLetteredSince,
  deadLetterUrl,
  ingest,
  poisonRecords,
  twinsInstance,
  unreachableConnectionString,
  waitUntil,
} from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { FUNCTION_KEY, MASTER_KEY, type TestHost } from "../support/test-host";
import { type CliRun, runTwin } from "./cli-runner";

// `twin dead-letters` and `twin poison` over the wire: dead letters and poison records made by a
// delivering host against the shared Azurite and the Service Bus stand-in, then listed, filtered,
// redelivered, peeked at and requeued through the CLI, with --local's SAS URLs (as `npm start`
// writes them) and with SAS URLs given; every refusal's exit code; and never a key or a SAS
// signature in anything it prints.

jest.setTimeout(240_000);

let stack: DeliveryStack;
let host: TestHost;
let folder: string;
let envFile: string;
let sasUrl: string;
let queueServiceUrl: string;
let identitySasUrl: string;
const outputs: string[] = [];

const INSTANCE = twinsInstance("cli-undelivered");
const ENDPOINT_ID = `${INSTANCE}/endpoints/unreachable`;
const IDS = ["cli-1", "cli/2", "cli-3"];

function storageEndpoint(name: "Blob" | "Queue"): string {
  return new RegExp(`${name}Endpoint=([^;]+)`).exec(sharedStandIns().storageConnectionString)?.[1] as string;
}

function twin(args: string[]): Promise<CliRun> {
  return runTwin(args, folder, outputs);
}

/** `twin … --local` with the test's env file. */
function local(args: string[]): Promise<CliRun> {
  return twin([...args, "--local", "--local-env", envFile]);
}

async function json(args: string[]): Promise<unknown> {
  const run = await local([...args, "--output", "json"]);
  if (run.code !== 0) throw new Error(`exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** The signature of a SAS URL, as it is and percent-encoded. */
function signatureOf(url: string): string[] {
  const sig = new URL(url).searchParams.get("sig") as string;
  return [sig, encodeURIComponent(sig)];
}

beforeAll(async () => {
  stack = await DeliveryStack.start({ DELIVERY_MAX_ATTEMPTS: "2" });
  host = stack.host;
  folder = tempDir("twin-undelivered-");
  sasUrl = await deadLetterUrl();
  queueServiceUrl = localQueueServiceSasUrl(storageEndpoint("Queue"));
  const { blobTlsEndpoint, certFile } = sharedStandIns();
  await httpsBlobServiceWithKey(blobTlsEndpoint, certFile)
    .getContainerClient("cli-identity")
    .createIfNotExists();
  identitySasUrl = localContainerSasUrl(`${blobTlsEndpoint}/cli-identity`);
  envFile = path.join(folder, "local.env");
  const values = {
    BASE_URL: host.baseUrl,
    FUNCTION_KEY,
    MASTER_KEY,
    STACK_AUTH_MODE: "keys",
    DEAD_LETTER_URL: sasUrl,
    IDENTITY_DEAD_LETTER_URL: identitySasUrl,
    QUEUE_SERVICE_URL: queueServiceUrl,
    STACK_EVENTS_QUEUE: host.config.TWIN_EVENTS_QUEUE,
    STACK_TLS_CERT_FILE: certFile,
  };
  writeFileSync(
    envFile,
    `${Object.entries(values)
      .map(([name, value]) => `export ${name}='${value}'`)
      .join("\n")}\n`,
  );
  // Three events dead-lettered: the endpoint's broker does not listen.
  const port = await closedPort();
  await createEndpoint(host, INSTANCE, "unreachable", {
    primary: unreachableConnectionString(port, "cli-topic"),
    secondary: unreachableConnectionString(port, "cli-topic"),
    deadLetter: sasUrl,
  });
  await ingest(
    host,
    INSTANCE,
    IDS.map((id) => cloudEvent(id)),
  );
  await waitUntil(() => deadLetteredSince([host]) >= 3, 120_000, "3 events dead-lettered");
});

afterAll(async () => {
  await stack?.stop();
  removeTempDirs();
});

it("answers --help for the groups and their commands, with the access each needs", async () => {
  const top = await twin(["--help"]);
  expect(top.stdout).toMatch(/^ {2}dead-letters +an endpoint's undelivered events/m);
  expect(top.stdout).toMatch(/^ {2}poison +the service's poison queue/m);
  const list = await twin(["dead-letters", "list", "--help"]);
  expect(list).toMatchObject({ code: 0, stderr: "" });
  expect(list.stdout).toContain("Usage: twin dead-letters list [<endpointId|name>] [options]");
  expect(list.stdout).toContain("Storage Blob Data Reader");
  const requeue = await twin(["poison", "requeue", "--help"]);
  expect(requeue.stdout).toContain("Usage: twin poison requeue [--all | <messageId>...] [options]");
  expect(requeue.stdout).toContain("Storage Queue Data Contributor");
});

describe("twin dead-letters list", () => {
  it("lists an endpoint's dead letters as a table and as JSON, with --local's container", async () => {
    const table = await local(["dead-letters", "list", ENDPOINT_ID]);
    expect(table).toMatchObject({ code: 0, stderr: "" });
    const [header, ...rows] = table.stdout.split("\n");
    expect(header).toMatch(/^BLOB +REASON +ATTEMPTS +DEAD-LETTERED AT +REDELIVERED$/);
    expect(rows.filter((row) => row.startsWith("unreachable/"))).toHaveLength(3);
    for (const row of rows.filter((each) => each.startsWith("unreachable/"))) {
      expect(row).toMatch(/ MaxDeliveryAttemptsExceeded +2 +\d{4}-\d\d-\d\dT\S+Z +-$/);
    }
    expect(table.stdout).toMatch(
      /\n3 dead letters in http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1\/dead-\w+\?\*\*\*\.\n$/,
    );

    const listed = (await json(["dead-letters", "list", ENDPOINT_ID])) as Record<string, unknown>[];
    expect(listed.map((each) => each.eventId).sort()).toEqual([...IDS].sort());
    for (const each of listed) {
      expect(each).toEqual({
        blob: expect.stringMatching(/^unreachable\/\d{4}\/\d\d\/\d\d\/\d\d\/cli(-1|%2F2|-3)\.json$/),
        eventId: expect.any(String),
        reason: "MaxDeliveryAttemptsExceeded",
        attempts: 2,
        lastError: expect.any(String),
        deadLetteredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    }
  });

  it("filters by reason and by time, and shows the events only when asked", async () => {
    expect(await json(["dead-letters", "list", "unreachable", "--reason", "TtlExpired"])).toEqual([]);
    const byReason = await json([
      "dead-letters",
      "list",
      "unreachable",
      "--reason",
      "MaxDeliveryAttemptsExceeded",
    ]);
    expect(byReason).toHaveLength(3);
    const old = ["--from", "2020-01-01T00:00:00Z", "--to", "2020-01-02T00:00:00+01:00"];
    expect(await json(["dead-letters", "list", "unreachable", ...old])).toEqual([]);
    const recent = new Date(Date.now() - 3_600_000).toISOString();
    expect(await json(["dead-letters", "list", "unreachable", "--from", recent])).toHaveLength(3);
    expect(JSON.stringify(byReason)).not.toContain('"event"');

    const shown = await local(["dead-letters", "list", "unreachable", "--show-events"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /^unreachable\/\d{4}\/\d\d\/\d\d\/\d\d\/cli%2F2\.json\n {2}event id +cli\/2$/m,
    );
    expect(shown.stdout).toMatch(/^ {2}reason +MaxDeliveryAttemptsExceeded$/m);
    expect(shown.stdout).toContain('"id":"cli-3"');
    const events = (await json(["dead-letters", "list", "--show-events"])) as { event: { id: string } }[];
    expect(events.map((each) => each.event.id).sort()).toEqual([...IDS].sort());
  });

  it("reads a container given as a SAS URL, and the stack's HTTPS container with --identity", async () => {
    const given = await twin(["dead-letters", "list", ENDPOINT_ID, "--container-url", sasUrl, "-o", "json"]);
    expect(given.code).toBe(0);
    expect(JSON.parse(given.stdout)).toHaveLength(3);

    const { blobTlsEndpoint, certFile } = sharedStandIns();
    await httpsBlobServiceWithKey(blobTlsEndpoint, certFile)
      .getContainerClient("cli-identity")
      .getBlockBlobClient("no-role/2026/12/01/10/evt-6.json")
      .upload("{}", 2, {
        metadata: {
          deadletterreason: "TtlExpired",
          deliveryattempts: "4",
          deadletteredat: "2026-12-01T10:00:00.000Z",
        },
      });
    const identity = await json(["dead-letters", "list", "no-role", "--identity"]);
    expect(identity).toEqual([
      {
        blob: "no-role/2026/12/01/10/evt-6.json",
        eventId: "evt-6",
        reason: "TtlExpired",
        attempts: 4,
        deadLetteredAt: "2026-12-01T10:00:00.000Z",
      },
    ]);
  });

  it.each([
    [["dead-letters", "list", "unreachable"], 2, "--container-url is required (or --local)"],
    [
      ["dead-letters", "list", "x", "--container-url", "not a url?sig=SECRETSIG"],
      2,
      "--container-url is not a URL",
    ],
    [
      ["dead-letters", "list", "x", "--container-url", "http://deadletters.example/c?sig=SECRETSIG"],
      2,
      "must be an https URL",
    ],
    [
      ["dead-letters", "list", "/subscriptions/x", "--container-url", "https://a.example/c"],
      2,
      "Not an endpoint id",
    ],
    [["dead-letters", "list", "x", "--local", "--reason", "ttlexpired"], 2, "--reason takes one of"],
    [["dead-letters", "list", "x", "--local", "--from", "yesterday"], 2, "--from takes an ISO 8601 time"],
    [
      [
        "dead-letters",
        "list",
        "x",
        "--local",
        "--from",
        "2026-02-01T00:00:00Z",
        "--to",
        "2026-01-01T00:00:00Z",
      ],
      2,
      "--from must not be later than --to",
    ],
    [["dead-letters", "list", "x", "--local", "--wait", "soon"], 2, "--wait takes a whole number"],
  ])("refuses a wrong command line: %j", async (args, code, message) => {
    const run = await twin(args.includes("--local") ? [...args, "--local-env", envFile] : args);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: "" });
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain("SECRETSIG");
  });

  it("exits 1 for a SAS that cannot list, 3 for one the account refuses, 4 for a missing container, never printing the SAS", async () => {
    const credential = new StorageSharedKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY);
    const container = new URL(sasUrl).pathname.split("/").pop() as string;
    const readOnly = generateBlobSASQueryParameters(
      {
        containerName: container,
        permissions: ContainerSASPermissions.parse("r"),
        expiresOn: new Date(Date.now() + 3_600_000),
      },
      credential,
    ).toString();
    const base = sasUrl.split("?")[0] as string;
    const cannotList = `${base}?${readOnly}`;
    const refused = sasUrl.replace(/sig=[^&]+/, `sig=${encodeURIComponent("bm90LXRoZS1zaWduYXR1cmU=")}`);
    const missing = localContainerSasUrl(`${storageEndpoint("Blob")}/never-made-${Date.now()}`);
    const cases: [string, number, RegExp][] = [
      [
        cannotList,
        1,
        /^error: cannot list the blobs of http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1\/dead-\w+\?\*\*\*: 403 \w+: it needs list/,
      ],
      [
        refused,
        3,
        /^error: cannot list the blobs of .*\?\*\*\*: 403 \w+: the storage account refused the SAS/,
      ],
      [missing, 4, /^error: cannot list the blobs of .*\/never-made-\d+\?\*\*\*: 404 ContainerNotFound/],
    ];
    for (const [url, code, message] of cases) {
      const run = await twin(["dead-letters", "list", "unreachable", "--container-url", url]);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: "" });
      expect(run.stderr).toMatch(message);
      const asJson = await twin([
        "dead-letters",
        "list",
        "unreachable",
        "--container-url",
        url,
        "-o",
        "json",
      ]);
      expect({ code: asJson.code, out: asJson.stdout }).toEqual({ code, out: "" });
      expect(JSON.parse(asJson.stderr)).toEqual({
        error: { code: expect.any(String), message: expect.any(String) },
      });
      for (const secret of [...signatureOf(url), url.split("?")[1] as string]) {
        expect(`${run.stderr}${asJson.stderr}`).not.toContain(secret);
      }
    }
  });
});

describe("twin dead-letters redeliver", () => {
  it("requeues them through the service, by reason and window, then skips them as redelivered", async () => {
    const subscriber = stack.subscribe("cli-topic");
    const connection = stack.serviceBus.connectionString("cli-topic");
    const patched = await host.request(ENDPOINT_ID, {
      method: "PATCH",
      body: JSON.stringify({
        queuePrimaryConnectionString: connection,
        queueSecondaryConnectionString: connection,
      }),
    });
    expect(patched.status).toBe(200);

    expect(await json(["dead-letters", "redeliver", ENDPOINT_ID, "--reason", "TtlExpired"])).toEqual({
      requeued: 0,
      skipped: 0,
      failed: 0,
    });
    const none = ["--from", "2020-01-01T00:00:00Z", "--to", "2020-01-02T00:00:00Z"];
    expect(await json(["dead-letters", "redeliver", "unreachable", "--instance", INSTANCE, ...none])).toEqual(
      {
        requeued: 0,
        skipped: 0,
        failed: 0,
      },
    );
    const done = await local([
      "dead-letters",
      "redeliver",
      ENDPOINT_ID,
      "--reason",
      "MaxDeliveryAttemptsExceeded",
    ]);
    expect(done).toEqual({
      code: 0,
      stdout: `requeued 3, skipped 0, failed 0 (${ENDPOINT_ID})\n`,
      stderr: "",
    });
    await waitUntil(() => subscriber.received.length >= 3, 90_000, "3 redelivered events");
    expect(subscriber.ids().sort()).toEqual([...IDS].sort());

    expect(await json(["dead-letters", "redeliver", ENDPOINT_ID])).toEqual({
      requeued: 0,
      skipped: 3,
      failed: 0,
    });
    const listed = (await json(["dead-letters", "list", ENDPOINT_ID])) as { redelivered?: string }[];
    expect(listed.map((each) => each.redelivered)).toEqual(Array(3).fill(expect.stringMatching(/^\d{4}-/)));
  });

  it("exits 4 for a missing endpoint, 1 for one without dead letters, 2 without the endpoint", async () => {
    const missing = await local(["dead-letters", "redeliver", `${INSTANCE}/endpoints/nowhere`]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: 404 /);
    const connection = stack.serviceBus.connectionString("cli-topic");
    await createEndpoint(host, INSTANCE, "no-dead-letters", { primary: connection, secondary: connection });
    const noSecret = await local([
      "dead-letters",
      "redeliver",
      `${INSTANCE}/endpoints/no-dead-letters`,
      "-o",
      "json",
    ]);
    expect(noSecret.code).toBe(1);
    expect(JSON.parse(noSecret.stderr)).toMatchObject({
      error: { status: 409, code: "DeadLettersUnavailable" },
    });
    const bare = await local(["dead-letters", "redeliver", "unreachable"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("Give the endpoint's full id, or its name with --instance.");
  });
});

describe("twin poison", () => {
  const poisonInstance = twinsInstance("cli-poison");
  let poisonQueue: QueueClient;

  /** What the CLI peeks at, as JSON. */
  async function peeked(): Promise<Record<string, unknown>[]> {
    return (await json(["poison", "peek"])) as Record<string, unknown>[];
  }

  beforeAll(async () => {
    poisonQueue = new QueueClient(
      sharedStandIns().storageConnectionString,
      poisonQueueName(host.config.TWIN_EVENTS_QUEUE),
    );
    // A record of the service's: delivery failed and there is no dead-letter secret.
    const port = await closedPort();
    await createEndpoint(host, poisonInstance, "no-secret", {
      primary: unreachableConnectionString(port, "poison-topic"),
      secondary: unreachableConnectionString(port, "poison-topic"),
    });
    await ingest(host, poisonInstance, [cloudEvent("poisoned-1")]);
    await waitUntil(
      async () => (await poisonRecords(host)).some((record) => record.reason === "NoDeadLetterSecret"),
      120_000,
      "the NoDeadLetterSecret record",
    );
    // A message the host moved after maxDequeueCount, as it was, and a record that holds no event.
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
    await poisonQueue.sendMessage(
      encode({ twinsInstanceId: poisonInstance, events: [cloudEvent("moved-1"), cloudEvent("moved-2")] }),
      { messageTimeToLive: -1 },
    );
    await poisonQueue.sendMessage(
      encode({
        reason: "EventTooDeep",
        detail: "the event nests deeper than 100 levels",
        twinsInstanceId: poisonInstance,
        eventLeftOut: { id: "deep-1", source: "/twins/test", type: "Twin.Update" },
        poisonedAt: new Date().toISOString(),
      }),
      { messageTimeToLive: -1 },
    );
  });

  it("peeks at every kind of record, leaving them in place", async () => {
    const table = await local(["poison", "peek"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^MESSAGE ID +INSERTED +DEQUEUES +REASON +INSTANCE +EVENTS +LAST ERROR \/ DETAIL$/m,
    );
    expect(table.stdout).toMatch(/ NoDeadLetterSecret +\/subscriptions\/\S+\/cli-poison +1 +\S/);
    expect(table.stdout).toMatch(/ host gave up +\/subscriptions\/\S+\/cli-poison +2 +-$/m);
    expect(table.stdout).toMatch(
      / EventTooDeep +\/subscriptions\/\S+\/cli-poison +0 +the event nests deeper than 100 levels$/m,
    );
    const records = await peeked();
    expect(records).toHaveLength(3);
    expect(records.find((record) => record.reason === "NoDeadLetterSecret")).toMatchObject({
      messageId: expect.any(String),
      insertedOn: expect.stringMatching(/^\d{4}-/),
      dequeueCount: 0,
      twinsInstanceId: poisonInstance,
      endpointName: "no-secret",
      events: 1,
      compressed: false,
      lastError: expect.any(String),
    });
    expect(await json(["poison", "peek", "--count", "1"])).toHaveLength(1);
    expect(await peeked()).toHaveLength(3);
  });

  it("leaves a record without events in place and reports a missing id, exit 1", async () => {
    const records = await peeked();
    const deep = records.find((record) => record.reason === "EventTooDeep")?.messageId as string;
    const left = await local(["poison", "requeue", deep, "nowhere-id", "-o", "json"]);
    expect(left.code).toBe(1);
    expect(JSON.parse(left.stdout)).toEqual({
      requeued: 0,
      left: 1,
      notFound: 1,
      messages: [
        {
          messageId: deep,
          outcome: "left",
          reason: "EventTooDeep",
          why: expect.stringContaining("eventLeftOut deep-1"),
        },
        { messageId: "nowhere-id", outcome: "not found", why: expect.stringContaining("no such message") },
      ],
    });
    // Visible again at once, not after the requeue's hiding time.
    expect(await peeked()).toHaveLength(3);
  });

  it("requeues by reason, then all, onto the main queue the host delivers from, and deletes them", async () => {
    const subscriber = stack.subscribe("poison-topic");
    const connection = stack.serviceBus.connectionString("poison-topic");
    const patched = await host.request(`${poisonInstance}/endpoints/no-secret`, {
      method: "PATCH",
      body: JSON.stringify({
        queuePrimaryConnectionString: connection,
        queueSecondaryConnectionString: connection,
      }),
    });
    expect(patched.status).toBe(200);

    const byReason = await local(["poison", "requeue", "--all", "--reason", "NoDeadLetterSecret"]);
    expect(byReason.code).toBe(0);
    expect(byReason.stdout).toMatch(/ requeued +NoDeadLetterSecret/);
    expect(byReason.stdout).toContain(`requeued 1 to ${host.config.TWIN_EVENTS_QUEUE}, left 0, not found 0`);
    await waitUntil(() => subscriber.ids().includes("poisoned-1"), 90_000, "the requeued event delivered");

    const rest = await local(["poison", "requeue", "--all"]);
    // Not all requeued: the table goes to standard error, with the exit code.
    expect({ code: rest.code, stdout: rest.stdout }).toEqual({ code: 1, stdout: "" });
    expect(rest.stderr).toMatch(/ requeued +host gave up/);
    expect(rest.stderr).toMatch(/ left +EventTooDeep +it names an event it could not hold/);
    await waitUntil(
      () => ["moved-1", "moved-2"].every((id) => subscriber.ids().includes(id)),
      90_000,
      "the moved message's events delivered",
    );
    expect((await peeked()).map((record) => record.reason)).toEqual(["EventTooDeep"]);
  });

  it("two requeues at once split the records: each requeued by one of them, none twice, none lost", async () => {
    const subscriber = stack.subscribe("poison-topic");
    const ids = Array.from({ length: 8 }, (_, index) => `raced-${index}`);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
    for (const id of ids) {
      await poisonQueue.sendMessage(encode({ twinsInstanceId: poisonInstance, events: [cloudEvent(id)] }), {
        messageTimeToLive: -1,
      });
    }
    const runs = await Promise.all([1, 2].map(() => local(["poison", "requeue", "--all", "-o", "json"])));
    const requeued = runs.flatMap((run) =>
      (JSON.parse(run.stdout) as { messages: { messageId: string; outcome: string }[] }).messages
        .filter((message) => message.outcome === "requeued")
        .map((message) => message.messageId),
    );
    expect(requeued).toHaveLength(ids.length);
    expect(new Set(requeued).size).toBe(ids.length);
    await waitUntil(
      () => ids.every((id) => subscriber.ids().includes(id)),
      90_000,
      "every raced event delivered",
    );
    expect((await peeked()).map((record) => record.reason)).toEqual(["EventTooDeep"]);
  });

  it("refuses a wrong command line, a SAS the account refuses and one that cannot receive", async () => {
    for (const [args, message] of [
      [["poison", "requeue", "--local", "--local-env", envFile], "Give --all or the message ids"],
      [
        ["poison", "requeue", "id-1", "--all", "--local", "--local-env", envFile],
        "Give --all or the message ids",
      ],
      [["poison", "peek"], "--queue-service-url is required (or --local)"],
      [
        ["poison", "peek", "--queue-service-url", "http://127.0.0.1:1/?sv=1&sig=SECRETSIG"],
        "--queue-service-url must be an account's queue service",
      ],
      [
        ["poison", "peek", "--local", "--local-env", envFile, "--count", "33"],
        "--count takes a whole number from 1 to 32",
      ],
    ] as const) {
      const run = await twin([...args]);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
      expect(run.stderr).toContain(message);
    }
    const refused = queueServiceUrl.replace(
      /sig=[^&]+/,
      `sig=${encodeURIComponent("bm90LXRoZS1zaWduYXR1cmU=")}`,
    );
    const denied = await twin([
      "poison",
      "peek",
      "--queue-service-url",
      refused,
      "--queue",
      host.config.TWIN_EVENTS_QUEUE,
    ]);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toMatch(
      /^error: cannot peek at events-\w+-poison of http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1\?\*\*\*: 403 \w+: the storage account refused the SAS/,
    );
    const readOnly = generateAccountSASQueryParameters(
      {
        services: "q",
        resourceTypes: "sco",
        permissions: AccountSASPermissions.parse("r"),
        expiresOn: new Date(Date.now() + 3_600_000),
      },
      new QueueKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY),
    ).toString();
    const peekOnly = `${storageEndpoint("Queue")}?${readOnly}`;
    const queue = ["--queue-service-url", peekOnly, "--queue", host.config.TWIN_EVENTS_QUEUE];
    expect((await twin(["poison", "peek", ...queue])).code).toBe(0);
    const cannot = await twin(["poison", "requeue", "--all", ...queue]);
    expect(cannot.code).toBe(1);
    expect(cannot.stderr).toMatch(
      /^error: cannot receive from events-\w+-poison of .*\?\*\*\*: 403 \w+: it needs Storage Queue Data Contributor/,
    );
    for (const url of [refused, peekOnly]) {
      for (const secret of signatureOf(url)) expect(`${denied.stderr}${cannot.stderr}`).not.toContain(secret);
    }
  });
});

it("never printed a key, an account key or a SAS signature", () => {
  expect(outputs.length).toBeGreaterThan(0);
  const printed = outputs.join("\n");
  const secrets = [
    FUNCTION_KEY,
    MASTER_KEY,
    DEV_ACCOUNT_KEY,
    ...[sasUrl, queueServiceUrl, identitySasUrl].flatMap(signatureOf),
  ];
  for (const secret of secrets) expect(printed).not.toContain(secret);
  expect(printed).not.toMatch(/sig=(?!\*\*\*)/);
});
