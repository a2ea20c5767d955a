import { InvalidRequestContent, QuotaExceeded, ResourceConflict } from "../../../src/common/errors";
import {
  ENDPOINTS_ONLY,
  noRouteNames,
  ROUTE_LEDGER_ID,
  type RoutedDocument,
  routeDocumentId,
  routeLedger,
} from "../../../src/endpoints/instance-partition";
import { Conflict } from "../../../src/store/cosmos-errors";
import { LEDGER_ID, type MakeAlongside, QuotaLedger, type QuotaScope } from "../../../src/store/quota-ledger";
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

describe("a ledger that keeps what its members refer to (event routes and their endpoints)", () => {
  type Doc = { id: string; instanceKey: string; endpointName?: string };
  const routes: QuotaScope = { partitionKey: "i", limit: 6, noun: "routes", setting: "ROUTES_MAX" };
  function setUpRoutes() {
    const store = new MemoryStore<Doc>((document) => String(document.instanceKey));
    const ledger = routeLedger<RoutedDocument>(store);
    const endpoints = new QuotaLedger<Doc>(store, "instanceKey", { counted: ENDPOINTS_ONLY });
    const route = (name: string, endpointName: string) => ({
      id: routeDocumentId(name),
      instanceKey: "i",
      endpointName,
    });
    /** The endpoint's read that goes in a route's batch, as the route service makes it. */
    const reads =
      (endpointName: string): MakeAlongside =>
      async () => ({
        operations: [{ operationType: "Read", id: endpointName }],
        failed: (_index, status) => (status === 404 ? new InvalidRequestContent("no endpoint") : undefined),
      });
    const deleteEndpoint = (name: string) =>
      endpoints.delete(name, undefined, routes, () => noRouteNames(ledger, routes.partitionKey, name));
    return { store, ledger, endpoints, route, reads, deleteEndpoint };
  }

  it("keeps each member's reference beside the count, and changes it with a replace", async () => {
    const { store, ledger, endpoints, route, reads } = setUpRoutes();
    await endpoints.create({ id: "hot", instanceKey: "i" }, routes);
    await endpoints.create({ id: "cold", instanceKey: "i" }, routes);
    await ledger.create(route("r", "hot"), routes, reads("hot"));
    const stored = await store.read(routeDocumentId("r"), "i");
    await ledger.replace(route("r", "Cold"), stored?._etag, routes, reads("cold"));
    expect(await store.readOther(ROUTE_LEDGER_ID, "i")).toMatchObject({
      members: [routeDocumentId("r")],
      refersTo: { [routeDocumentId("r")]: "cold" },
    });
    // The endpoints' own ledger counts endpoints only.
    expect(await endpoints.members(routes)).toEqual(["cold", "hot"]);
  });

  it("refuses a route whose endpoint is deleted between the route's read of the ledger and its batch", async () => {
    const { store, ledger, endpoints, route, reads, deleteEndpoint } = setUpRoutes();
    await endpoints.create({ id: "hot", instanceKey: "i" }, routes);
    store.beforeWrite = () => deleteEndpoint("hot").then(() => undefined);
    await expect(ledger.create(route("r", "hot"), routes, reads("hot"))).rejects.toBeInstanceOf(
      InvalidRequestContent,
    );
    expect(await store.read(routeDocumentId("r"), "i")).toBeUndefined();
  });

  it("refuses (409) an endpoint's delete when a route naming it is made between the delete's check and its batch", async () => {
    const { store, ledger, endpoints, route, reads, deleteEndpoint } = setUpRoutes();
    await endpoints.create({ id: "hot", instanceKey: "i" }, routes);
    // The delete reads both ledgers (no route names "hot"), then, before its batch, a route is made.
    store.beforeWrite = () => ledger.create(route("r", "hot"), routes, reads("hot")).then(() => undefined);
    await expect(deleteEndpoint("hot")).rejects.toBeInstanceOf(ResourceConflict);
    expect(await store.read("hot", "i")).toBeDefined();
    expect(await ledger.members(routes)).toEqual([routeDocumentId("r")]);
  });
});
