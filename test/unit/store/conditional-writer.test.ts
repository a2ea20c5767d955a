import { PreconditionFailed, ServiceUnavailable } from "../../../src/common/errors";
import { ConditionalWriter } from "../../../src/store/conditional-writer";
import { MemoryStore } from "../../support/memory-store";

// The shared write paths against an in-memory store: preconditions, races the client guarded
// against (412) and races it did not (retried, last write wins).
type Item = { id: string; pk: string; value: number; createdAt?: string };
const address = { id: "x", partitionKey: "p" };

function setUp() {
  const store = new MemoryStore<Item>((document) => String(document.pk));
  return { store, writer: new ConditionalWriter<Item>(store, "item") };
}

const build = (value: number) => (existing: Item | undefined, at: { id: string; partitionKey: string }) => ({
  id: at.id,
  pk: at.partitionKey,
  value,
  createdAt: existing?.createdAt ?? `created-with-${value}`,
});

it("creates, then replaces keeping what build carries over, and hands build the address", async () => {
  const { writer } = setUp();
  expect((await writer.put(address, {}, build(1))).created).toBe(true);
  const second = await writer.put(address, {}, build(2));
  expect(second).toMatchObject({ created: false, document: { value: 2, createdAt: "created-with-1" } });
});

it("replaces whatever is current when the client set no precondition, even if it changed meanwhile", async () => {
  const { store, writer } = setUp();
  await writer.put(address, {}, build(1));
  store.beforeWrite = async () => {
    await store.replace({ id: "x", pk: "p", value: 99 }, undefined);
  };
  expect((await writer.put(address, {}, build(2))).document.value).toBe(2);
});

it("answers 412 when the version the client's If-Match named changed before the write", async () => {
  const { store, writer } = setUp();
  const { document } = await writer.put(address, {}, build(1));
  store.beforeWrite = async () => {
    await store.replace({ id: "x", pk: "p", value: 99 }, undefined);
  };
  await expect(writer.put(address, { ifMatch: [document._etag] }, build(2))).rejects.toBeInstanceOf(
    PreconditionFailed,
  );
});

it("re-applies a PATCH to the newer version when another write got in first", async () => {
  const { store, writer } = setUp();
  await writer.put(address, {}, build(1));
  store.beforeWrite = async () => {
    await store.replace({ id: "x", pk: "p", value: 10 }, undefined);
  };
  const patched = await writer.patch(
    address,
    {},
    (existing) => ({ ...existing, value: existing.value + 1 }),
    () => new Error("absent"),
  );
  expect(patched.value).toBe(11);
});

it("answers 412, not 204, to a DELETE whose If-Match version another request deleted", async () => {
  const { store, writer } = setUp();
  const { document } = await writer.put(address, {}, build(1));
  store.beforeWrite = async () => {
    await store.delete("x", "p", document._etag);
  };
  await expect(writer.delete(address, { ifMatch: [document._etag] })).rejects.toThrow(
    /deleted by another request/,
  );
});

it("answers false (204) to an unconditional DELETE that finds nothing, true when it deleted", async () => {
  const { writer } = setUp();
  expect(await writer.delete(address, {})).toBe(false);
  await writer.put(address, {}, build(1));
  expect(await writer.delete(address, {})).toBe(true);
});

it("gives up with 503 only after many lost rounds", async () => {
  const { store, writer } = setUp();
  await writer.put(address, {}, build(1));
  let rounds = 0;
  const interfere = async () => {
    rounds += 1;
    await store.replace({ id: "x", pk: "p", value: rounds }, undefined);
    store.beforeWrite = interfere;
  };
  store.beforeWrite = interfere;
  await expect(
    writer.patch(
      address,
      {},
      (existing) => existing,
      () => new Error("absent"),
    ),
  ).rejects.toBeInstanceOf(ServiceUnavailable);
  expect(rounds).toBeGreaterThanOrEqual(20);
});

it("deletes on an unconditional DELETE even when another write replaces the resource after every read", async () => {
  const { store, writer } = setUp();
  await writer.put(address, {}, build(1));
  let replaced = 0;
  const churn = async () => {
    replaced += 1;
    await store.replace({ id: "x", pk: "p", value: 100 + replaced }, undefined);
    store.beforeWrite = churn; // and again before the next write, forever
  };
  store.beforeWrite = churn;
  expect(await writer.delete(address, {})).toBe(true);
  expect(await store.read("x", "p")).toBeUndefined();
  expect(replaced).toBeGreaterThan(0);
});

it("reads before a DELETE only when the client set a precondition: the delete's own answer is enough otherwise", async () => {
  const { store, writer } = setUp();
  const { document } = await writer.put(address, {}, build(1));
  const read = store.read.bind(store);
  let reads = 0;
  store.read = async (id, partitionKey) => {
    reads += 1;
    return read(id, partitionKey);
  };
  expect(await writer.delete(address, {})).toBe(true);
  expect(await writer.delete(address, {})).toBe(false);
  expect(reads).toBe(0);
  await writer.put(address, {}, build(2));
  reads = 0;
  await expect(writer.delete(address, { ifMatch: [document._etag] })).rejects.toBeInstanceOf(
    PreconditionFailed,
  );
  expect(reads).toBe(1);
});
