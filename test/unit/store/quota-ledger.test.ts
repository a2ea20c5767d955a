import { QuotaExceeded } from "../../../src/common/errors";
import { Conflict } from "../../../src/store/cosmos-errors";
import { LEDGER_ID, QuotaLedger, type QuotaScope } from "../../../src/store/quota-ledger";
import { MemoryStore } from "../../support/memory-store";

// The quota ledger against an in-memory store with Cosmos DB's batch semantics: what it writes,
// and how it behaves when another writer gets in between its read and its batch.
type Item = { id: string; group: string };
const scope: QuotaScope = { partitionKey: "g", limit: 2, noun: "items", setting: "ITEMS_MAX" };

function setUp() {
  const store = new MemoryStore<Item>((document) => String(document.group));
  return { store, ledger: new QuotaLedger<Item>(store, "group") };
}

it("creates the resource and its ledger entry together, and refuses past the limit naming the setting", async () => {
  const { store, ledger } = setUp();
  await ledger.create({ id: "a", group: "g" }, scope);
  await ledger.create({ id: "b", group: "g" }, scope);
  expect(await ledger.members(scope)).toEqual(["a", "b"]);
  const refused = ledger.create({ id: "c", group: "g" }, scope);
  await expect(refused).rejects.toBeInstanceOf(QuotaExceeded);
  await expect(refused).rejects.toThrow(/quota of 2 items.*raise ITEMS_MAX/);
  expect(store.ids("g", LEDGER_ID)).toEqual(["a", "b"]);
});

it("answers Conflict, changing nothing, when the id is taken", async () => {
  const { store, ledger } = setUp();
  await ledger.create({ id: "a", group: "g" }, scope);
  const ledgerBefore = await store.readOther(LEDGER_ID, "g");
  await expect(ledger.create({ id: "a", group: "g" }, scope)).rejects.toBeInstanceOf(Conflict);
  expect(await store.readOther(LEDGER_ID, "g")).toEqual(ledgerBefore);
});

it("retries against the new ledger when another create got in first, and then counts both", async () => {
  const { store, ledger } = setUp();
  store.beforeWrite = () => ledger.create({ id: "rival", group: "g" }, scope).then(() => undefined);
  await ledger.create({ id: "mine", group: "g" }, scope);
  expect(await ledger.members(scope)).toEqual(["mine", "rival"]);
});

it("does not let a racing create take the last place twice", async () => {
  const { store, ledger } = setUp();
  await ledger.create({ id: "a", group: "g" }, scope);
  // Between this create's read of the ledger (one place left) and its batch, a rival takes it.
  store.beforeWrite = () => ledger.create({ id: "rival", group: "g" }, scope).then(() => undefined);
  await expect(ledger.create({ id: "late", group: "g" }, scope)).rejects.toBeInstanceOf(QuotaExceeded);
  expect(store.ids("g", LEDGER_ID)).toEqual(["a", "rival"]);
});

it("deletes a version and its entry together; says 'changed' or 'absent' when the version is gone", async () => {
  const { store, ledger } = setUp();
  const created = await ledger.create({ id: "a", group: "g" }, scope);
  await store.replace({ id: "a", group: "g" }, undefined);
  expect(await ledger.delete("a", created._etag, scope)).toBe("changed");
  expect(await ledger.members(scope)).toEqual(["a"]);
  const current = await store.read("a", "g");
  expect(await ledger.delete("a", current?._etag ?? "", scope)).toBe("deleted");
  expect(await ledger.members(scope)).toEqual([]);
  expect(await ledger.delete("a", current?._etag ?? "", scope)).toBe("absent");
});

it("starts a missing ledger from the resources already stored, so they count", async () => {
  const { store, ledger } = setUp();
  await store.create({ id: "old-1", group: "g" });
  await store.create({ id: "old-2", group: "g" });
  await expect(ledger.create({ id: "new", group: "g" }, scope)).rejects.toBeInstanceOf(QuotaExceeded);
});
