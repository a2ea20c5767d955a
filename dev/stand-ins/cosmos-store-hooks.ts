import type { StoreChange, StoredResource } from "./cosmos-journal-format";

/**
 * Sees every change to the local Cosmos server's in-memory store, at the one place they all pass:
 * its `Items` class (`lib/account/items`), whose `_set` stores a database, container, document or
 * function and whose `delete` removes one. Create, replace, upsert, patch, batch, and the database
 * and container handlers all end there. A store with a journal attached reports each change to it
 * the moment it is made, in order; stores without one (the tests' in-process servers) report nothing.
 */

const PACKAGE = "@vercel/cosmosdb-server";

/** The parts of the server's `Items` class (a map of one kind of resource) this module touches. */
export interface ItemsStore {
  _data: Map<string, { read(): StoredResource | undefined }>;
  _index: Map<string, string>;
  _ridCount: number;
  _set(data: StoredResource): StoredResource;
  create(data: Record<string, unknown>): StoredResource;
  delete(idOrRid: string, partition?: unknown): void;
  _item(keyPath: string, value: unknown, partition: unknown): { read(): StoredResource | undefined };
  _getPartition(data: StoredResource): unknown;
}

export interface CollectionNode {
  read(): StoredResource | undefined;
  documents: ItemsStore;
  userDefinedFunctions: ItemsStore & { functions: Record<string, unknown> };
}

export interface DatabaseNode {
  read(): StoredResource | undefined;
  collections: ItemsStore;
  collection(id: string): CollectionNode;
}

export interface AccountNode {
  databases: ItemsStore;
  database(id: string): DatabaseNode;
}

/** Where a store's changes go: appended in order; `mark`/`discardSince` undo an atomic batch. */
export interface ChangeSink {
  append(change: StoreChange): void;
  mark(): number;
  discardSince(mark: number): void;
}

type Address = { k: "db" } | { k: "coll"; db: string } | { k: "doc" | "udf"; db: string; c: string };

const attached = new WeakMap<ItemsStore, { sink: ChangeSink; address: Address }>();
let lastAccount: AccountNode | undefined;
let installed = false;

/** Patches the server's classes once (before or after the server module loads: both look up late). */
export function installStoreHooks(): void {
  if (installed) return;
  installed = true;
  const items = require(`${PACKAGE}/lib/account/items`) as { default: { prototype: ItemsStore } };
  const prototype = items.default.prototype;
  const set = prototype._set;
  const remove = prototype.delete;
  prototype._set = function (this: ItemsStore, data) {
    const stored = set.call(this, data);
    const hook = attached.get(this);
    if (hook !== undefined) {
      hook.sink.append({ t: "set", ...hook.address, d: stored, n: this._ridCount } as StoreChange);
      attachChildren(this, stored, hook.sink, hook.address);
    }
    return stored;
  };
  prototype.delete = function (this: ItemsStore, idOrRid, partition) {
    const hook = attached.get(this);
    const existing = hook === undefined ? undefined : this._item("/id", idOrRid, partition).read();
    remove.call(this, idOrRid, partition);
    if (hook !== undefined && existing !== undefined) {
      const p = hook.address.k === "doc" ? { p: this._getPartition(existing) } : {};
      hook.sink.append({ t: "del", ...hook.address, id: existing.id, ...p } as StoreChange);
    }
  };
  // The server makes its account when it starts listening, in a closure; this is the way to it.
  const account = require(`${PACKAGE}/lib/account`) as { default: new (...args: unknown[]) => AccountNode };
  const Account = account.default;
  account.default = class extends Account {
    constructor(...args: unknown[]) {
      super(...args);
      lastAccount = this;
    }
  };
}

/** The account of the server that started listening last (read it in a `listening` listener). */
export function latestAccount(): AccountNode {
  if (lastAccount === undefined) throw new Error("no Cosmos server account has been made");
  return lastAccount;
}

function attachChildren(store: ItemsStore, stored: StoredResource, sink: ChangeSink, address: Address): void {
  const node = store._data.get(stored._rid);
  if (address.k === "db") {
    attached.set((node as unknown as DatabaseNode).collections, {
      sink,
      address: { k: "coll", db: stored.id },
    });
  } else if (address.k === "coll") {
    const collection = node as unknown as CollectionNode;
    const c = stored.id;
    attached.set(collection.documents, { sink, address: { k: "doc", db: address.db, c } });
    attached.set(collection.userDefinedFunctions, { sink, address: { k: "udf", db: address.db, c } });
  }
}

/** From now on every change to the account's store goes to `sink`. */
export function attachSink(account: AccountNode, sink: ChangeSink): void {
  const root: Address = { k: "db" };
  attached.set(account.databases, { sink, address: root });
  for (const database of account.databases._data.values()) {
    const data = database.read() as StoredResource;
    attachChildren(account.databases, data, sink, root);
    const collections = (database as unknown as DatabaseNode).collections;
    for (const collection of collections._data.values()) {
      attachChildren(collections, collection.read() as StoredResource, sink, { k: "coll", db: data.id });
    }
  }
}

/**
 * For an atomic batch: returns what undoes, in the journal, the changes made to `store` from now
 * (the batch restores the store's maps itself). Changes are only ever taken from the sink between
 * requests, never during the batch's synchronous run, so they are all still there to discard.
 */
export function journalCheckpoint(store: ItemsStore): () => void {
  const sink = attached.get(store)?.sink;
  const mark = sink?.mark();
  return () => {
    if (sink !== undefined && mark !== undefined) sink.discardSince(mark);
  };
}
