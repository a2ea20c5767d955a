import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import * as https from "node:https";
import * as path from "node:path";
import { type Container, CosmosClient, type ItemDefinition } from "@azure/cosmos";
import { freePort } from "../../dev/ports";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import { type BuiltProcess, startBuiltProcess } from "../support/built-process";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// The Cosmos stand-in as `npm start` runs it (dist/dev/cosmos-server-main.js, a child process),
// written to through the real @azure/cosmos SDK, then killed with SIGKILL and started again on the
// same data folder: every write it answered must be there, and nothing it answered as deleted.

interface Running {
  process: BuiltProcess;
  client: CosmosClient;
}

const running: Running[] = [];

async function startCosmos(dir: string, env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const process = await startBuiltProcess("cosmos-server-main.js", {
    COSMOS_PORT: String(port),
    LOCAL_DATA_DIR: dir,
    LOCAL_DATA_IN_MEMORY: "",
    ...env,
  });
  const client = new CosmosClient({
    endpoint: `https://127.0.0.1:${port}/`,
    key: COSMOS_EMULATOR_KEY,
    agent: new https.Agent({ rejectUnauthorized: false }),
    // A write the server never answered must not be sent again behind the test's back.
    connectionPolicy: {
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    },
  });
  const started = { process, client };
  running.push(started);
  return started;
}

async function crash(server: Running): Promise<void> {
  await server.process.kill();
  server.client.dispose();
}

afterAll(async () => {
  for (const { process, client } of running) {
    await process.kill();
    client.dispose();
  }
  removeTempDirs();
});

async function containerOf(client: CosmosClient, id = "c"): Promise<Container> {
  const { database } = await client.databases.createIfNotExists({ id: "journal-db" });
  const { container } = await database.containers.createIfNotExists({
    id,
    partitionKey: { paths: ["/tenant"] },
  });
  return container;
}

async function allDocuments(container: Container): Promise<Map<string, ItemDefinition>> {
  const { resources } = await container.items.readAll().fetchAll();
  return new Map(resources.map((document) => [document.id as string, document]));
}

it("keeps creates, replaces, upserts, patches, deletes and a transactional batch through kill -9", async () => {
  const dir = tempDir("cosmos-journal-");
  const first = await startCosmos(dir);
  const container = await containerOf(first.client);
  await containerOf(first.client, "dropped");
  for (const id of ["a", "b", "c", "d"]) {
    await container.items.create({ id, tenant: "t1", value: 1 });
  }
  await container.item("a", "t1").replace({ id: "a", tenant: "t1", value: 2 });
  await container.items.upsert({ id: "e", tenant: "t2", value: 5 });
  await container.item("b", "t1").patch([{ op: "set", path: "/value", value: 7 }]);
  await container.item("c", "t1").delete();
  const batch = await container.items.batch(
    [
      { operationType: "Create", resourceBody: { id: "f", tenant: "t1", value: 1 } },
      { operationType: "Replace", id: "d", resourceBody: { id: "d", tenant: "t1", value: 9 } },
    ],
    "t1",
  );
  expect(batch.result?.map((result) => result.statusCode)).toEqual([201, 200]);
  // An atomic batch that fails changes nothing, on disk as in memory.
  const failed = await container.items.batch(
    [
      { operationType: "Create", resourceBody: { id: "ghost", tenant: "t1" } },
      { operationType: "Create", resourceBody: { id: "a", tenant: "t1" } },
    ],
    "t1",
  );
  expect(failed.result?.map((result) => result.statusCode)).toEqual([424, 409]);
  await first.client.database("journal-db").container("dropped").delete();
  const answered = await allDocuments(container);
  await crash(first);

  const second = await startCosmos(dir);
  const restored = await allDocuments(second.client.database("journal-db").container("c"));
  expect([...restored.keys()].sort()).toEqual(["a", "b", "d", "e", "f"]);
  for (const [id, document] of answered) {
    // The same document, ETag and resource id included (so If-Match still holds after a restart).
    expect(restored.get(id)).toEqual(document);
  }
  expect(restored.get("b")).toMatchObject({ value: 7 });
  const { resources: containers } = await second.client
    .database("journal-db")
    .containers.readAll()
    .fetchAll();
  expect(containers.map((definition) => definition.id)).toEqual(["c"]);
  // Resource ids continue where they were: a new document overwrites none of the restored ones.
  await second.client.database("journal-db").container("c").items.create({ id: "g", tenant: "t1" });
  expect((await allDocuments(second.client.database("journal-db").container("c"))).size).toBe(6);
  await crash(second);
});

type Outcome = number | "deleted";

/** Writers that each own some documents and change them one request at a time until the server dies. */
function writeStream(container: Container, writers: number, prefix: string) {
  const ledger = new Map<string, { answered: Outcome; sent: Outcome }>();
  const loops = Array.from({ length: writers }, async (_, writer) => {
    for (let step = 0; ; step++) {
      const id = `${prefix}-w${writer}-${step % 5}`;
      const entry = ledger.get(id) ?? { answered: "deleted", sent: "deleted" };
      ledger.set(id, entry);
      entry.sent = step % 7 === 6 && entry.answered !== "deleted" ? "deleted" : step;
      try {
        if (entry.sent === "deleted") await container.item(id, `t${writer}`).delete();
        else await container.items.upsert({ id, tenant: `t${writer}`, value: step, pad: "x".repeat(200) });
        entry.answered = entry.sent;
      } catch {
        return; // The server is gone: this write may or may not have happened, and the writer stops.
      }
    }
  });
  return { ledger, done: Promise.all(loops) };
}

it("keeps every answered write when killed in the middle of a stream of writes and compactions", async () => {
  const dir = tempDir("cosmos-journal-stream-");
  // A tiny compaction size: the journal is folded into the snapshot all the time, so the kills
  // land in the middle of compactions too.
  const env = { COSMOS_JOURNAL_COMPACT_BYTES: "4096" };
  const ledger = new Map<string, { answered: Outcome; sent: Outcome }>();
  let server = await startCosmos(dir, env);
  for (let round = 0; round < 4; round++) {
    const stream = writeStream(await containerOf(server.client), 12, `r${round}`);
    await new Promise((resolve) => setTimeout(resolve, 500 + round * 250));
    await crash(server);
    await stream.done;
    for (const [id, entry] of stream.ledger) ledger.set(id, entry);
    server = await startCosmos(dir, env);
    const documents = await allDocuments(await containerOf(server.client));
    let answered = 0;
    for (const [id, entry] of ledger) {
      const found: Outcome = (documents.get(id)?.value as number | undefined) ?? "deleted";
      // What the server answered is there; a write it never answered may or may not be.
      if (found !== entry.answered && found !== entry.sent) {
        throw new Error(`${id}: found ${found}, but the server answered ${entry.answered}`);
      }
      if (entry.answered !== "deleted") answered++;
      // From now on the document must stay as found.
      ledger.set(id, { answered: found, sent: found });
    }
    expect(answered).toBeGreaterThan(0);
  }
  await crash(server);
}, 120_000);

function latestJournal(dir: string): string {
  const journals = readdirSync(dir)
    .filter((name) => name.startsWith("cosmos-journal-"))
    .sort((a, b) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]));
  return path.join(dir, journals[journals.length - 1] as string);
}

it("leaves out a record torn by a crash, and keeps writing after it", async () => {
  const dir = tempDir("cosmos-journal-torn-");
  const first = await startCosmos(dir);
  const container = await containerOf(first.client);
  await container.items.create({ id: "before", tenant: "t" });
  await crash(first);
  const journal = latestJournal(dir);
  const lastRecord = readFileSync(journal, "utf8").trimEnd().split("\n").pop() as string;
  // What a crash halfway through a write leaves: the start of a record, no end.
  appendFileSync(journal, lastRecord.slice(0, lastRecord.length / 2));

  const second = await startCosmos(dir);
  expect(second.process.output()).toContain("left out a record cut short by a crash");
  const documents = await containerOf(second.client);
  expect([...(await allDocuments(documents)).keys()]).toEqual(["before"]);
  await documents.items.create({ id: "after", tenant: "t" });
  await crash(second);

  const third = await startCosmos(dir);
  expect([...(await allDocuments(await containerOf(third.client))).keys()].sort()).toEqual([
    "after",
    "before",
  ]);
  await crash(third);
});

it("refuses to start on a journal damaged in the middle, naming the file", async () => {
  const dir = tempDir("cosmos-journal-damaged-");
  const first = await startCosmos(dir);
  const container = await containerOf(first.client);
  await container.items.create({ id: "one", tenant: "t" });
  await container.items.create({ id: "two", tenant: "t" });
  await crash(first);
  const journal = latestJournal(dir);
  const bytes = readFileSync(journal);
  bytes[12] = (bytes[12] as number) ^ 0x04;
  writeFileSync(journal, bytes);
  await expect(startCosmos(dir)).rejects.toThrow(
    /cannot read the journal .*cosmos-journal-\d+\.log.*move .* away/s,
  );
});

it("folds the journal into the snapshot on a clean stop, and starts from it", async () => {
  const dir = tempDir("cosmos-journal-clean-");
  const first = await startCosmos(dir);
  await (await containerOf(first.client)).items.create({ id: "kept", tenant: "t" });
  await first.process.stop();
  first.client.dispose();
  expect(readdirSync(dir)).toEqual(["cosmos-snapshot.json"]);
  const second = await startCosmos(dir);
  expect([...(await allDocuments(await containerOf(second.client))).keys()]).toEqual(["kept"]);
  await crash(second);
});

it("restores a snapshot written before the journal existed, and rewrites it in the new form", async () => {
  const dir = tempDir("cosmos-journal-legacy-");
  const legacy = {
    takenAt: "2025-01-01T00:00:00.000Z",
    databases: [
      {
        id: "journal-db",
        containers: [
          { id: "c", partitionKeyPaths: ["/tenant"], documents: [{ id: "old", tenant: "t", v: 1 }] },
        ],
      },
    ],
  };
  writeFileSync(path.join(dir, "cosmos-snapshot.json"), JSON.stringify(legacy));
  const server = await startCosmos(dir);
  const { resource } = await server.client.database("journal-db").container("c").item("old", "t").read();
  expect(resource).toMatchObject({ id: "old", tenant: "t", v: 1 });
  expect(JSON.parse(readFileSync(path.join(dir, "cosmos-snapshot.json"), "utf8")).format).toBe(
    "cosmos-store/2",
  );
  expect(existsSync(path.join(dir, "cosmos-snapshot.json.tmp"))).toBe(false);
  await crash(server);
});
