import * as path from "node:path";
import fc from "fast-check";
import { extentMetadataStoreFile, makeExtentDeletionLinear } from "../../dev/stand-ins/azurite-extent-gc";

/** Azurite's own stores, in memory, as its queue service makes them (QueueServer.js). */
interface ExtentStore {
  init(): Promise<void>;
  appendExtent(data: Buffer): Promise<{ id: string }>;
  deleteExtents(ids: Iterable<string>): Promise<number>;
  readExtent(chunk: { id: string; offset: number; count: number }): Promise<NodeJS.ReadableStream>;
}
interface MetadataStore {
  init(): Promise<void>;
  deleteExtent(id: string): Promise<void>;
  getExtentLocationId(id: string): Promise<string>;
  iteratorExtents(): AsyncIterator<string[]>;
}

const persistence = path.dirname(extentMetadataStoreFile());
const { default: LokiExtentMetadataStore } = require(extentMetadataStoreFile()) as {
  default: new (file: string, inMemory: boolean) => MetadataStore;
};
const memory = require(path.join(persistence, "MemoryExtentStore.js")) as {
  default: new (
    category: string,
    chunks: unknown,
    metadata: MetadataStore,
    logger: unknown,
    makeError: unknown,
  ) => ExtentStore;
  MemoryExtentChunkStore: new (limit: number) => unknown;
};
const quiet = { info() {}, debug() {}, error() {}, warn() {}, verbose() {} };

async function stores() {
  const metadata = new LokiExtentMetadataStore(path.join("/nonexistent", "extents.db"), true);
  await metadata.init();
  const extents = new memory.default(
    "queue",
    new memory.MemoryExtentChunkStore(1e9),
    metadata,
    quiet,
    () => new Error(),
  );
  await extents.init();
  return { metadata, extents };
}

async function listed(metadata: MetadataStore): Promise<string[]> {
  const ids: string[] = [];
  const iterator = metadata.iteratorExtents();
  for (let bucket = await iterator.next(); bucket.done !== true; bucket = await iterator.next())
    ids.push(...bucket.value);
  return ids.sort();
}

describe("Azurite's extent deletion, made linear (dev/stand-ins/azurite-extent-gc.ts)", () => {
  beforeAll(() => {
    expect(makeExtentDeletionLinear()).toBe(true);
  });

  it("patches once: a second call finds the store already replaced and leaves it", () => {
    expect(makeExtentDeletionLinear()).toBe(false);
  });

  it("deletes exactly the extents the GC names, in any order and mix with new ones, and the rest stay readable", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant("add" as const), fc.nat(40)), { minLength: 1, maxLength: 80 }),
        async (steps) => {
          const { metadata, extents } = await stores();
          const live: string[] = [];
          for (const step of steps) {
            if (step === "add") {
              live.push((await extents.appendExtent(Buffer.from(`body ${live.length}`))).id);
            } else if (live.length > 0) {
              // Delete a batch as the GC does (with an unknown id and a repeat in it, which must change nothing).
              const batch = live.splice(step % live.length, 1 + (step % 3));
              await extents.deleteExtents([...batch, "no-such-extent", ...batch.slice(0, 1)]);
            }
          }
          expect(await listed(metadata)).toEqual([...live].sort());
          // The id index still finds every extent left (a stale index would miss or mismatch them).
          for (const id of live) await expect(metadata.getExtentLocationId(id)).resolves.toBe(id);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps the bodies of extents still referred to", async () => {
    const { extents } = await stores();
    const kept = await extents.appendExtent(Buffer.from("kept"));
    const gone = await extents.appendExtent(Buffer.from("gone"));
    await extents.deleteExtents([gone.id]);
    const stream = await extents.readExtent({ id: kept.id, offset: 0, count: 4 });
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe("kept");
    await expect(extents.readExtent({ id: gone.id, offset: 0, count: 4 })).rejects.toThrow();
  });
});
