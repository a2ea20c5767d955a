import fc from "fast-check";
import type { StoreChange } from "../../dev/stand-ins/cosmos-journal-format";
import {
  type AccountNode,
  attachSink,
  type ChangeSink,
  installStoreHooks,
  journalCheckpoint,
} from "../../dev/stand-ins/cosmos-store-hooks";
import { applyChange, dumpChanges } from "../../dev/stand-ins/cosmos-store-replay";

// Replay against the real server's store classes (@vercel/cosmosdb-server's Account, no network):
// what the hooks record, replayed into an empty store, rebuilds it exactly (ids, ETags, counters).

installStoreHooks();
const Account = (
  require("@vercel/cosmosdb-server/lib/account") as { default: new (h: string, p: number) => AccountNode }
).default;

class Recorder implements ChangeSink {
  changes: StoreChange[] = [];
  append(change: StoreChange): void {
    // As the journal does: what is recorded is the change as it was then.
    this.changes.push(JSON.parse(JSON.stringify(change)) as StoreChange);
  }
  mark(): number {
    return this.changes.length;
  }
  discardSince(mark: number): void {
    this.changes.length = mark;
  }
}

function recorded(): { account: AccountNode; recorder: Recorder } {
  const account = new Account("127.0.0.1", 1);
  const recorder = new Recorder();
  attachSink(account, recorder);
  return { account, recorder };
}

function replayed(changes: StoreChange[]): AccountNode {
  const account = new Account("127.0.0.1", 1);
  for (const change of changes) applyChange(account, change);
  return account;
}

type Documents = AccountNode["databases"] & {
  replace(data: Record<string, unknown>, old: Record<string, unknown>): unknown;
  upsert(data: Record<string, unknown>): unknown;
};

function documentsOf(account: AccountNode, db: string, c: string): Documents {
  return account.database(db).collection(c).documents as Documents;
}

it("rebuilds databases, containers, documents and functions with their ids, ETags and counters", () => {
  const { account, recorder } = recorded();
  account.databases.create({ id: "db" });
  account.databases.create({ id: "gone" });
  const collections = account.database("db").collections as Documents;
  collections.create({ id: "c", partitionKey: { paths: ["/tenant"], kind: "Hash" } });
  collections.create({ id: "dropped", partitionKey: { paths: ["/id"] } });
  const documents = documentsOf(account, "db", "c");
  documents.create({ id: "a", tenant: "t1", value: 1 });
  documents.create({ id: "b", tenant: "t2", nested: { list: [1, 2] } });
  documents.create({ id: "a", tenant: "t2" });
  documents.replace({ id: "a", tenant: "t1", value: 2 }, documents._item("/id", "a", "t1").read() as never);
  documents.upsert({ id: "c", tenant: "t1" });
  documents.delete("b", "t2");
  const functions = account.database("db").collection("c").userDefinedFunctions as unknown as Documents;
  functions.create({ id: "double", body: "function (x) { return x * 2; }" });
  collections.delete("dropped", "dropped");
  account.databases.delete("gone", "gone");

  const copy = replayed(recorder.changes);
  expect(dumpChanges(copy)).toEqual(dumpChanges(account));
  expect(documentsOf(copy, "db", "c")._item("/id", "a", "t1").read()).toMatchObject({ value: 2 });
  expect(documentsOf(copy, "db", "c")._item("/id", "b", "t2").read()).toBeUndefined();
  const restoredFunctions = copy.database("db").collection("c").userDefinedFunctions.functions;
  expect((restoredFunctions.double as (x: number) => number)(21)).toBe(42);
  // The next document gets the id it would have got: nothing restored is overwritten.
  const next = documentsOf(copy, "db", "c").create({ id: "new", tenant: "t1" });
  expect(next._rid).toBe(documentsOf(account, "db", "c").create({ id: "new", tenant: "t1" })._rid);
  expect(documentsOf(copy, "db", "c")._data.size).toBe(4);
});

it("rebuilds a store from its own dump (a snapshot), which dumps the same again", () => {
  const { account } = recorded();
  account.databases.create({ id: "db" });
  (account.database("db").collections as Documents).create({ id: "c", partitionKey: { paths: ["/id"] } });
  for (let i = 0; i < 5; i++) documentsOf(account, "db", "c").create({ id: `d${i}` });
  documentsOf(account, "db", "c").delete("d2", "d2");
  const dump = dumpChanges(account);
  expect(dumpChanges(replayed(dump))).toEqual(dump);
});

it("forgets the changes of a batch that was undone (journalCheckpoint)", () => {
  const { account, recorder } = recorded();
  account.databases.create({ id: "db" });
  (account.database("db").collections as Documents).create({ id: "c", partitionKey: { paths: ["/id"] } });
  const documents = documentsOf(account, "db", "c");
  documents.create({ id: "kept" });
  const before = recorder.changes.length;
  const forget = journalCheckpoint(documents);
  documents.create({ id: "undone" });
  forget();
  expect(recorder.changes).toHaveLength(before);
  expect(replayed(recorder.changes).database("db").collection("c").documents._data.size).toBe(1);
});

it("records nothing for a store without a journal", () => {
  const recorder = new Recorder();
  const account = new Account("127.0.0.1", 1);
  account.databases.create({ id: "db" });
  expect(recorder.changes).toEqual([]);
  expect(dumpChanges(account)).toHaveLength(1);
});

type Step =
  | { op: "create" | "upsert" | "delete"; id: string; tenant: string }
  | { op: "replaceContainer" | "dropContainer" | "dropDatabase" };

const operation: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant("create" as const),
    id: fc.constantFrom("a", "b", "c"),
    tenant: fc.constantFrom("x", "y"),
  }),
  fc.record({
    op: fc.constant("upsert" as const),
    id: fc.constantFrom("a", "b", "c"),
    tenant: fc.constantFrom("x", "y"),
  }),
  fc.record({
    op: fc.constant("delete" as const),
    id: fc.constantFrom("a", "b", "c"),
    tenant: fc.constantFrom("x", "y"),
  }),
  fc.record({
    op: fc.constantFrom("replaceContainer" as const, "dropContainer" as const, "dropDatabase" as const),
  }),
);

function run(account: AccountNode, step: Step, value: number): void {
  if (account.database("db").read() === undefined) account.databases.create({ id: "db" });
  const collections = account.database("db").collections as Documents;
  const existing = collections._item("/id", "c", "c").read();
  if (existing === undefined) collections.create({ id: "c", partitionKey: { paths: ["/tenant"] } });
  const documents = documentsOf(account, "db", "c");
  try {
    if (step.op === "create") documents.create({ id: step.id, tenant: step.tenant, value });
    if (step.op === "upsert") documents.upsert({ id: step.id, tenant: step.tenant, value });
    if (step.op === "delete") documents.delete(step.id, step.tenant);
    if (step.op === "replaceContainer" && existing)
      collections.replace({ ...existing, extra: value }, existing);
    if (step.op === "dropContainer") collections.delete("c", "c");
    if (step.op === "dropDatabase") account.databases.delete("db", "db");
  } catch {
    // A conflict or a missing document: the store refused it and changed nothing.
  }
}

it("rebuilds the same store after any sequence of writes, including containers replaced and dropped", () => {
  fc.assert(
    fc.property(fc.array(operation, { maxLength: 30 }), (steps) => {
      const { account, recorder } = recorded();
      for (const [index, step] of steps.entries()) run(account, step, index);
      const copy = replayed(recorder.changes);
      expect(dumpChanges(copy)).toEqual(dumpChanges(account));
      // And a snapshot taken partway, followed by the rest of the changes, rebuilds it too.
      const half = Math.floor(recorder.changes.length / 2);
      const partway = replayed([
        ...dumpChanges(replayed(recorder.changes.slice(0, half))),
        ...recorder.changes.slice(half),
      ]);
      expect(dumpChanges(partway)).toEqual(dumpChanges(account));
    }),
  );
});
