import * as path from "node:path";

/** The part of Azurite's LokiExtentMetadataStore (and of its LokiJS collection) the replacement uses. */
interface ExtentMetadataStore {
  db: {
    getCollection(name: string): { findOne(query: object): object | null; remove(document: object): void };
  };
  EXTENTS_COLLECTION: string;
  deleteExtent(extentId: string): Promise<void>;
}

export function extentMetadataStoreFile(): string {
  const azurite = path.dirname(require.resolve("azurite/package.json"));
  return path.join(azurite, "dist", "src", "common", "persistence", "LokiExtentMetadataStore.js");
}

/**
 * Makes each extent deletion of Azurite's garbage collection a lookup and a splice instead of an
 * index rebuild (a sort of every extent), which stalled the queue service. Every minute Azurite's
 * blob and queue services delete the extents (message and blob bodies) nothing refers to any more,
 * one `deleteExtent` each, synchronously on the event loop. Azurite (3.35, and its source as of
 * this writing) deletes one with LokiJS's `findAndRemove`, which removes through a result set: that
 * marks the collection's `id` index dirty, and the next lookup rebuilds it by sorting every extent
 * left. A queue whose messages came and went by the thousand in the last minute then took the
 * service seconds to tens of seconds (2,000 extents 2.4 s, 4,000 9–13 s, 8,000 49 s), during which
 * it answered nothing, and afterwards it reset the connections whose keep-alive timers had run out
 * meanwhile, requests in them included (the storage SDK retries those after 4 s). `findOne` +
 * `remove` does the same deletion through the index, which stays valid: 4,000 extents in about
 * 60 ms; 16,000 deleted in a minute still pause the queue service about 1.5 s.
 * Returns false, changing nothing, when Azurite's store is not the one this was written against.
 */
export function makeExtentDeletionLinear(): boolean {
  const store = (require(extentMetadataStoreFile()) as { default?: { prototype: ExtentMetadataStore } })
    .default;
  const original = store?.prototype.deleteExtent;
  if (store === undefined || typeof original !== "function" || !String(original).includes("findAndRemove")) {
    return false;
  }
  store.prototype.deleteExtent = async function deleteExtent(this: ExtentMetadataStore, extentId: string) {
    const extents = this.db.getCollection(this.EXTENTS_COLLECTION);
    const extent = extents.findOne({ id: extentId });
    if (extent !== null) extents.remove(extent);
  };
  return true;
}
