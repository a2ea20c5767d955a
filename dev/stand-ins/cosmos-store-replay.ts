import type { StoreChange, StoredResource } from "./cosmos-journal-format";
import type { AccountNode, CollectionNode, ItemsStore } from "./cosmos-store-hooks";

/**
 * Puts changes from a snapshot or the journal back into the server's store, as the store made them:
 * the same resource ids, ETags and timestamps, and the same id counters, so what is made later does
 * not collide with what was restored. Also the other way: the whole store as changes (a snapshot).
 */

function collectionOf(account: AccountNode, db: string, c: string): CollectionNode | undefined {
  const database = account.database(db);
  if (database.read() === undefined) return undefined;
  const collection = database.collection(c);
  return collection.read() === undefined ? undefined : collection;
}

function storeOf(account: AccountNode, change: StoreChange): ItemsStore | undefined {
  if (change.k === "db") return account.databases;
  if (change.k === "coll") {
    const database = account.database(change.db);
    return database.read() === undefined ? undefined : database.collections;
  }
  const collection = collectionOf(account, change.db, change.c);
  if (collection === undefined) return undefined;
  return change.k === "doc" ? collection.documents : collection.userDefinedFunctions;
}

/** The server compiles a function's body when it is stored; a restored one needs the same. */
function compileFunction(body: unknown): unknown {
  return new Function(`"use strict";return (${String(body)})`)();
}

/**
 * Applies one change. A change whose database or container is gone is left out: replaying from a
 * snapshot that already holds later changes meets the container's delete further on.
 */
export function applyChange(account: AccountNode, change: StoreChange): void {
  const store = storeOf(account, change);
  if (store === undefined) return;
  if (change.t === "set") {
    store._set(change.d);
    store._ridCount = change.n;
    if (change.k === "udf") {
      (store as CollectionNode["userDefinedFunctions"]).functions[change.d.id] = compileFunction(
        change.d.body,
      );
    }
    return;
  }
  const partition = change.k === "doc" ? change.p : change.id;
  if (store._item("/id", change.id, partition).read() !== undefined) store.delete(change.id, partition);
}

function dumpStore(store: ItemsStore, change: (d: StoredResource, n: number) => StoreChange): StoreChange[] {
  return [...store._data.values()].map((node) => change(node.read() as StoredResource, store._ridCount));
}

/** Every database, container, document and function as changes that rebuild them in order. */
export function dumpChanges(account: AccountNode): StoreChange[] {
  const changes: StoreChange[] = [];
  for (const database of account.databases._data.values()) {
    const db = (database.read() as StoredResource).id;
    changes.push({ t: "set", k: "db", d: database.read() as StoredResource, n: account.databases._ridCount });
    const collections = account.database(db).collections;
    for (const node of collections._data.values()) {
      const c = (node.read() as StoredResource).id;
      changes.push({ t: "set", k: "coll", db, d: node.read() as StoredResource, n: collections._ridCount });
      const collection = node as unknown as CollectionNode;
      changes.push(...dumpStore(collection.documents, (d, n) => ({ t: "set", k: "doc", db, c, d, n })));
      changes.push(
        ...dumpStore(collection.userDefinedFunctions, (d, n) => ({ t: "set", k: "udf", db, c, d, n })),
      );
    }
  }
  return changes;
}
