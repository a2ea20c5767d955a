import { readdirSync } from "node:fs";
import * as https from "node:https";
import { type Container, CosmosClient } from "@azure/cosmos";
import type { CompactionStep } from "../../dev/stand-ins/cosmos-durable-store";
import {
  COSMOS_EMULATOR_KEY,
  type RunningCosmosServer,
  startCosmosServer,
} from "../../dev/stand-ins/cosmos-server";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// A crash at each step of a compaction (new journal opened, writes switched to it, snapshot
// written, snapshot renamed into place, old journals removed), with writes arriving throughout:
// the server is stopped dead at that step (no more disk writes, no more answers, as kill -9 would),
// then a new server on the same folder must hold every write that was answered.

const STEPS: CompactionStep[] = [
  "journal-opened",
  "switched",
  "snapshot-written",
  "snapshot-renamed",
  "done",
];
const clients: CosmosClient[] = [];

afterAll(() => {
  for (const client of clients) client.dispose();
  removeTempDirs();
});

async function open(dir: string, crashAt?: { step: CompactionStep; armed: () => boolean }) {
  const server = await startCosmosServer(0, "127.0.0.1", {
    durable: {
      dir,
      compactBytes: 1e9,
      onFailure: () => undefined,
      atStep: (step, halt) => {
        if (crashAt?.armed() && step === crashAt.step) {
          halt();
          throw new Error(`crashed at ${step}`);
        }
      },
    },
  });
  const client = new CosmosClient({
    endpoint: server.endpoint,
    key: COSMOS_EMULATOR_KEY,
    agent: new https.Agent({ rejectUnauthorized: false }),
    connectionPolicy: {
      retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 },
    },
  });
  clients.push(client);
  const { database } = await client.databases.createIfNotExists({ id: "db" });
  const { container } = await database.containers.createIfNotExists({
    id: "c",
    partitionKey: { paths: ["/id"] },
  });
  return { server, container };
}

/**
 * Writers creating and deleting until `stop()` or the server stops answering: `done`, what it
 * answered, and `answered()`, how many answers so far (a test waits for some, not for a time: a
 * loaded machine may answer none in any given 150 ms).
 */
function write(container: Container, prefix: string, stop: () => boolean) {
  const present = new Set<string>();
  const deleted = new Set<string>();
  let answers = 0;
  const done = Promise.all(
    Array.from({ length: 6 }, async (_, writer) => {
      for (let step = 0; !stop(); step++) {
        const id = `${prefix}-${writer}-${step}`;
        try {
          await container.items.create({ id, value: step });
          present.add(id);
          answers++;
          if (step % 3 === 2) {
            await container.item(id, id).delete();
            present.delete(id);
            deleted.add(id);
            answers++;
          }
        } catch {
          // Sent, never answered: the crash may have kept it or not.
          present.delete(id);
          deleted.delete(id);
          return;
        }
      }
    }),
  ).then(() => ({ present, deleted }));
  return { done, answered: () => answers };
}

/** Resolves once `writes` has had `count` answers. */
async function answeredAtLeast(writes: { answered(): number }, count: number): Promise<void> {
  while (writes.answered() < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function ids(container: Container): Promise<Set<string>> {
  const { resources } = await container.items.readAll().fetchAll();
  return new Set(resources.map((document) => document.id as string));
}

describe.each(STEPS)("a crash during compaction at %s", (step) => {
  it("loses no answered write and brings back no answered delete", async () => {
    const dir = tempDir("cosmos-compaction-");
    let armed = false;
    const first = await open(dir, { step, armed: () => armed });
    // One compaction that completes, then the one that crashes, with writes all along.
    let stopped = false;
    const beforeWrites = write(first.container, "a", () => stopped);
    await answeredAtLeast(beforeWrites, 12);
    const store = first.server.store as NonNullable<typeof first.server.store>;
    await store.compact();
    stopped = true;
    const before = await beforeWrites.done;
    // These run until the crash: the server answers nothing after it.
    const duringWrites = write(first.container, "b", () => false);
    await answeredAtLeast(duringWrites, 12);
    armed = true;
    const compaction = await store.compact().then(
      () => "finished",
      (error: Error) => error.message,
    );
    expect(compaction).toBe(`crashed at ${step}`);
    const during = await duringWrites.done;
    await first.server.close();

    const second: { server: RunningCosmosServer; container: Container } = await open(dir);
    const found = await ids(second.container);
    for (const id of [...before.present, ...during.present]) expect(found).toContain(id);
    for (const id of [...before.deleted, ...during.deleted]) expect(found).not.toContain(id);
    expect(during.present.size + during.deleted.size).toBeGreaterThan(0);
    // Started again, the folder holds one snapshot and one journal: the crash's leftovers are gone.
    expect(readdirSync(dir).sort()).toEqual([
      expect.stringMatching(/^cosmos-journal-\d+\.log$/),
      "cosmos-snapshot.json",
    ]);
    await second.server.close();
  });
});
