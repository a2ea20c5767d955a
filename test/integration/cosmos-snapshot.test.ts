import { readFileSync, writeFileSync } from "node:fs";
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
  running.push({ process, client });
  return { process, client };
}

async function crash(server: Running): Promise<void> {
  await server.process.kill();
  server.client.dispose();
}

afterAll(async () => {
  for (const server of running) await crash(server);
  removeTempDirs();
});

async function containerOf(client: CosmosClient, id = "c"): Promise<Container> {
  const { database } = await client.databases.createIfNotExists({ id: "snapshot-db" });
  const { container } = await database.containers.createIfNotExists({ id, partitionKey: { paths: ["/t"] } });
  return container;
}

async function allDocuments(container: Container): Promise<Map<string, ItemDefinition>> {
  const { resources } = await container.items.readAll().fetchAll();
  return new Map(resources.map((document) => [document.id as string, document]));
}

it("keeps creates, replaces, upserts, patches, deletes and batches through kill -9", async () => {
  const dir = tempDir("cosmos-snapshot-");
  const first = await startCosmos(dir);
  const container = await containerOf(first.client);
  await containerOf(first.client, "dropped");
  for (const id of ["a", "b", "c", "d"]) await container.items.create({ id, t: "t1", value: 1 });
  await container.item("a", "t1").replace({ id: "a", t: "t1", value: 2 });
  await container.items.upsert({ id: "e", t: "t2", value: 5 });
  await container.item("b", "t1").patch([{ op: "set", path: "/value", value: 7 }]);
  await container.item("c", "t1").delete();
  const batch = await container.items.batch(
    [
      { operationType: "Create", resourceBody: { id: "f", t: "t1", value: 1 } },
      { operationType: "Replace", id: "d", resourceBody: { id: "d", t: "t1", value: 9 } },
    ],
    "t1",
  );
  expect(batch.result?.map((result) => result.statusCode)).toEqual([201, 200]);
  // An atomic batch that fails changes nothing, on disk as in memory.
  const failed = await container.items.batch(
    [
      { operationType: "Create", resourceBody: { id: "ghost", t: "t1" } },
      { operationType: "Create", resourceBody: { id: "a", t: "t1" } },
    ],
    "t1",
  );
  expect(failed.result?.map((result) => result.statusCode)).toEqual([424, 409]);
  await first.client.database("snapshot-db").container("dropped").delete();
  const answered = await allDocuments(container);
  await crash(first);

  const second = await startCosmos(dir);
  expect(second.process.output()).toContain("restored 5 documents");
  const restored = second.client.database("snapshot-db").container("c");
  const documents = await allDocuments(restored);
  expect([...documents.keys()].sort()).toEqual(["a", "b", "d", "e", "f"]);
  // The same documents, ETags and resource ids included (so If-Match still holds after a restart).
  expect(documents).toEqual(answered);
  expect(documents.get("b")).toMatchObject({ value: 7 });
  const { resources: containers } = await second.client
    .database("snapshot-db")
    .containers.readAll()
    .fetchAll();
  expect(containers.map((definition) => definition.id)).toEqual(["c"]);
  // Resource ids continue where they were: a new document overwrites none of the restored ones.
  await restored.items.create({ id: "g", t: "t1" });
  expect((await allDocuments(restored)).size).toBe(6);
});

type Outcome = number | "deleted";

/** Writers that each own some documents and change them one request at a time until the server dies. */
function writeStream(container: Container, prefix: string) {
  const ledger = new Map<string, { answered: Outcome; sent: Outcome }>();
  let answers = 0;
  const loops = Array.from({ length: 8 }, async (_, writer) => {
    for (let step = 0; ; step++) {
      const id = `${prefix}-w${writer}-${step % 5}`;
      const entry = ledger.get(id) ?? { answered: "deleted", sent: "deleted" };
      ledger.set(id, entry);
      entry.sent = step % 7 === 6 && entry.answered !== "deleted" ? "deleted" : step;
      try {
        if (entry.sent === "deleted") await container.item(id, `t${writer}`).delete();
        else await container.items.upsert({ id, t: `t${writer}`, value: step, pad: "x".repeat(200) });
        entry.answered = entry.sent;
        answers++;
      } catch {
        return; // The server is gone: this write may or may not have happened, and the writer stops.
      }
    }
  });
  return { ledger, answers: () => answers, done: Promise.all(loops) };
}

it("keeps every answered write when killed in the middle of a stream of writes", async () => {
  const dir = tempDir("cosmos-snapshot-stream-");
  const ledger = new Map<string, { answered: Outcome; sent: Outcome }>();
  let server = await startCosmos(dir);
  for (let round = 0; round < 3; round++) {
    const stream = writeStream(await containerOf(server.client), `r${round}`);
    // Killed with writes in flight, once some have been answered (a count, not a time).
    while (stream.answers() < 50 * (round + 1)) await new Promise((resolve) => setImmediate(resolve));
    await crash(server);
    await stream.done;
    for (const [id, entry] of stream.ledger) ledger.set(id, entry);
    server = await startCosmos(dir);
    const documents = await allDocuments(await containerOf(server.client));
    for (const [id, entry] of ledger) {
      const found: Outcome = (documents.get(id)?.value as number | undefined) ?? "deleted";
      // What the server answered is there; a write it never answered may or may not be.
      if (found !== entry.answered && found !== entry.sent) {
        throw new Error(`${id}: found ${found}, but the server answered ${entry.answered}`);
      }
      ledger.set(id, { answered: found, sent: found });
    }
  }
}, 120_000);

it("keeps the previous snapshot when killed between writing the new one and renaming it", async () => {
  const dir = tempDir("cosmos-snapshot-rename-");
  // Preloaded into the server: SIGKILL on the rename into place, once the test creates `armed`.
  const armed = path.join(dir, "armed");
  const preload = path.join(tempDir("cosmos-preload-"), "crash-on-rename.js");
  writeFileSync(
    preload,
    `const fs = require("node:fs");
     const rename = fs.renameSync;
     fs.renameSync = (from, to) => {
       const armed = fs.existsSync(${JSON.stringify(armed)});
       if (armed && String(to).endsWith("cosmos-snapshot.json")) process.kill(process.pid, "SIGKILL");
       return rename(from, to);
     };`,
  );
  const first = await startCosmos(dir, { NODE_OPTIONS: `--require ${preload}` });
  const container = await containerOf(first.client);
  await container.items.create({ id: "before", t: "t" });
  writeFileSync(armed, "");
  await expect(container.items.create({ id: "lost", t: "t" })).rejects.toThrow();
  await crash(first);
  // The new snapshot was written whole beside the old one, never renamed; cut it short as well,
  // as a crash in the middle of writing it would.
  const temporary = readFileSync(path.join(dir, "cosmos-snapshot.json.tmp"), "utf8");
  expect(temporary).toContain('"lost"');
  writeFileSync(path.join(dir, "cosmos-snapshot.json.tmp"), temporary.slice(0, temporary.length / 2));

  const second = await startCosmos(dir);
  const documents = await containerOf(second.client);
  expect([...(await allDocuments(documents)).keys()]).toEqual(["before"]);
  await documents.items.create({ id: "after", t: "t" });
  await crash(second);
  const third = await startCosmos(dir);
  expect([...(await allDocuments(await containerOf(third.client))).keys()].sort()).toEqual([
    "after",
    "before",
  ]);
});

it.each([
  ["damaged by hand", '{"format":"cosmos-snapshot/3",'],
  ["of another format", JSON.stringify({ format: "cosmos-store/2", journal: 1, changes: [] })],
])("refuses to start on a snapshot %s, naming it and the way out, and leaves it", async (_what, content) => {
  const dir = tempDir("cosmos-snapshot-refused-");
  writeFileSync(path.join(dir, "cosmos-snapshot.json"), content);
  await expect(startCosmos(dir)).rejects.toThrow(
    /cannot read the snapshot .*cosmos-snapshot\.json.*move that file away/s,
  );
  expect(readFileSync(path.join(dir, "cosmos-snapshot.json"), "utf8")).toBe(content);
});
