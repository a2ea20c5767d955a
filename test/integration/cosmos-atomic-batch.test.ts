import { randomUUID } from "node:crypto";
import * as https from "node:https";
import { type Container, CosmosClient, type OperationInput } from "@azure/cosmos";
import { COSMOS_EMULATOR_KEY } from "../../dev/stand-ins/cosmos-server";
import { sharedStandIns } from "../support/stand-ins-env";

// The local Cosmos DB server's transactional batch, as the quota ledger relies on it: all or nothing,
// in the partition named once for the batch (as the SDK sends it), 207 with 424s on failure.
let client: CosmosClient;
let container: Container;

beforeAll(async () => {
  client = new CosmosClient({
    endpoint: sharedStandIns().cosmosEndpoint,
    key: COSMOS_EMULATOR_KEY,
    agent: new https.Agent({ rejectUnauthorized: false }),
  });
  const { database } = await client.databases.createIfNotExists({ id: `batch-${randomUUID().slice(0, 8)}` });
  ({ container } = await database.containers.createIfNotExists({
    id: "things",
    partitionKey: { paths: ["/group"] },
  }));
});
afterAll(() => client.dispose());

async function ids(group: string): Promise<string[]> {
  const { resources } = await container.items
    .query<string>({
      query: "SELECT VALUE c.id FROM c WHERE c.group = @group",
      parameters: [{ name: "@group", value: group }],
    })
    .fetchAll();
  return resources.sort();
}

it("commits every operation, Replace and Delete included, in the batch's partition", async () => {
  const { resource: kept } = await container.items.create({ id: "kept", group: "a", value: 1 });
  await container.items.create({ id: "gone", group: "a" });
  const response = await container.items.batch(
    [
      { operationType: "Create", resourceBody: { id: "new", group: "a" } },
      {
        operationType: "Replace",
        id: "kept",
        resourceBody: { id: "kept", group: "a", value: 2 },
        ifMatch: kept?._etag,
      },
      { operationType: "Delete", id: "gone" },
    ],
    "a",
  );
  expect(response.code).toBe(200);
  expect(response.result?.map((result) => result.statusCode)).toEqual([201, 200, 204]);
  expect(await ids("a")).toEqual(["kept", "new"]);
  expect((await container.item("kept", "a").read()).resource?.value).toBe(2);
});

it("undoes the operations before a failure, versions included, and answers 207 with 424 for the others", async () => {
  const { resource: ledger } = await container.items.create({ id: "ledger", group: "b", count: 0 });
  const { resource: current } = await container
    .item("ledger", "b")
    .replace({ id: "ledger", group: "b", count: 1 });
  const operations: OperationInput[] = [
    { operationType: "Create", resourceBody: { id: "first", group: "b" } },
    { operationType: "Delete", id: "ledger" },
    // A stale ETag: this fails, so the two before must not have happened.
    {
      operationType: "Replace",
      id: "ledger",
      resourceBody: { id: "ledger", group: "b", count: 9 },
      ifMatch: ledger?._etag,
    },
    { operationType: "Create", resourceBody: { id: "after", group: "b" } },
  ];
  const response = await container.items.batch(operations, "b");
  expect(response.code).toBe(207);
  expect(response.result?.map((result) => result.statusCode)).toEqual([424, 424, 404, 424]);
  expect(await ids("b")).toEqual(["ledger"]);
  // As it was, ETag included, so an ETag read before the batch still matches.
  const { resource: after } = await container.item("ledger", "b").read();
  expect({ count: after?.count, etag: after?._etag }).toEqual({ count: 1, etag: current?._etag });
});

it("refuses a document outside the batch's partition, and undoes the rest", async () => {
  const response = await container.items.batch(
    [
      { operationType: "Create", resourceBody: { id: "inside", group: "d" } },
      { operationType: "Create", resourceBody: { id: "outside", group: "elsewhere" } },
    ],
    "d",
  );
  expect(response.result?.map((result) => result.statusCode)).toEqual([424, 400]);
  expect([...(await ids("d")), ...(await ids("elsewhere"))]).toEqual([]);
});
