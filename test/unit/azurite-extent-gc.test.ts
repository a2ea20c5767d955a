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
  getExtentLocationId(id: string): Promise<string>;
  iteratorExtents(): AsyncIterator<string[]>;
}

const { default: LokiExtentMetadataStore } = require(extentMetadataStoreFile()) as {
  default: new (file: string, inMemory: boolean) => MetadataStore;
};
const memory = require(path.join(path.dirname(extentMetadataStoreFile()), "MemoryExtentStore.js")) as {
  default: new (...args: unknown[]) => ExtentStore;
  MemoryExtentChunkStore: new (limit: number) => unknown;
};
const quiet = { info() {}, debug() {}, error() {}, warn() {}, verbose() {} };

async function stores() {
  const metadata = new LokiExtentMetadataStore(path.join("/nonexistent", "extents.db"), true);
  await metadata.init();
  const chunks = new memory.MemoryExtentChunkStore(1e9);
  const extents = new memory.default("queue", chunks, metadata, quiet, () => new Error());
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

async function body(extents: ExtentStore, id: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await extents.readExtent({ id, offset: 0, count: 100 }))
    chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe("Azurite's extent deletion, made linear (dev/stand-ins/azurite-extent-gc.ts)", () => {
  beforeAll(() => {
    expect(makeExtentDeletionLinear()).toBe(true);
  });

  it("deletes exactly the extents the GC names, in any order and mix with new ones, and the rest stay readable", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant("add" as const), fc.nat(40)), { minLength: 1, maxLength: 80 }),
        async (steps) => {
          const { metadata, extents } = await stores();
          const live = new Map<string, string>();
          const gone: string[] = [];
          for (const [index, step] of steps.entries()) {
            if (step === "add") {
              live.set((await extents.appendExtent(Buffer.from(`body ${index}`))).id, `body ${index}`);
            } else if (live.size > 0) {
              // Delete a batch as the GC does (with an unknown id and a repeat in it, which must change nothing).
              const batch = [...live.keys()].splice(step % live.size, 1 + (step % 3));
              for (const id of batch) live.delete(id);
              gone.push(...batch);
              await extents.deleteExtents([...batch, "no-such-extent", ...batch.slice(0, 1)]);
            }
          }
          expect(await listed(metadata)).toEqual([...live.keys()].sort());
          // The id index still finds every extent left (a stale index would miss or mismatch them).
          for (const [id, text] of live) {
            await expect(metadata.getExtentLocationId(id)).resolves.toBe(id);
            await expect(body(extents, id)).resolves.toBe(text);
          }
          for (const id of gone) await expect(body(extents, id)).rejects.toThrow();
        },
      ),
      { numRuns: 60 },
    );
  });
});
