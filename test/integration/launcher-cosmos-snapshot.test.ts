import { readFileSync } from "node:fs";
import * as https from "node:https";
import * as os from "node:os";
import * as path from "node:path";
import { CosmosClient } from "@azure/cosmos";
import { CosmosSnapshotter } from "../../dev/cosmos-snapshotter";
import {
  COSMOS_EMULATOR_KEY,
  type RunningCosmosServer,
  startCosmosServer,
} from "../../dev/stand-ins/cosmos-server";
import {
  loadSnapshotFile,
  restoreSnapshot,
  saveSnapshotFile,
  takeSnapshot,
} from "../../dev/stand-ins/cosmos-snapshot";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// The local Cosmos server keeps data in memory; snapshots carry it across restarts of `npm start`.

const servers: RunningCosmosServer[] = [];
const clients: CosmosClient[] = [];

async function freshServer(): Promise<CosmosClient> {
  const server = await startCosmosServer(0);
  servers.push(server);
  const client = new CosmosClient({
    endpoint: server.endpoint,
    key: COSMOS_EMULATOR_KEY,
    agent: new https.Agent({ rejectUnauthorized: false }),
  });
  clients.push(client);
  return client;
}

afterAll(async () => {
  for (const client of clients) client.dispose();
  await Promise.all(servers.map((server) => server.close()));
  removeTempDirs();
});

async function seed(client: CosmosClient): Promise<void> {
  const { database } = await client.databases.createIfNotExists({ id: "snapshot-db" });
  const { container: byId } = await database.containers.createIfNotExists({
    id: "profiles",
    partitionKey: { paths: ["/id"] },
  });
  const { container: byTenant } = await database.containers.createIfNotExists({
    id: "events",
    partitionKey: { paths: ["/tenant"] },
  });
  await byId.items.create({ id: "p1", content: '{"a":"b"}' });
  await byId.items.create({ id: "p2", nested: { list: [1, 2, 3] } });
  await byTenant.items.create({ id: "e1", tenant: "t1", value: 1 });
  await byTenant.items.create({ id: "e2", tenant: "t2", value: 2 });
}

function sortById<T extends { id: string }>(documents: T[]): T[] {
  return [...documents].sort((a, b) => a.id.localeCompare(b.id));
}

it("takes every database, container with its partition key, and document without system properties", async () => {
  const client = await freshServer();
  await seed(client);
  const snapshot = await takeSnapshot(client);
  const database = snapshot.databases.find((entry) => entry.id === "snapshot-db");
  const containers = Object.fromEntries((database?.containers ?? []).map((entry) => [entry.id, entry]));
  expect(containers.profiles?.partitionKeyPaths).toEqual(["/id"]);
  expect(containers.events?.partitionKeyPaths).toEqual(["/tenant"]);
  expect(sortById(containers.profiles?.documents as { id: string }[])).toEqual([
    { id: "p1", content: '{"a":"b"}' },
    { id: "p2", nested: { list: [1, 2, 3] } },
  ]);
  expect(containers.events?.documents).toHaveLength(2);
});

it("restores a saved snapshot into an empty server, readable by id and partition key", async () => {
  const source = await freshServer();
  await seed(source);
  const file = path.join(tempDir("snapshot-"), "cosmos-snapshot.json");
  saveSnapshotFile(file, await takeSnapshot(source));

  const target = await freshServer();
  const loaded = loadSnapshotFile(file);
  expect(loaded).toBeDefined();
  expect(await restoreSnapshot(target, loaded as NonNullable<typeof loaded>)).toBe(4);

  const database = target.database("snapshot-db");
  const { resource: profile } = await database.container("profiles").item("p1", "p1").read();
  expect(profile).toMatchObject({ id: "p1", content: '{"a":"b"}' });
  const { resource: event } = await database.container("events").item("e2", "t2").read();
  expect(event).toMatchObject({ id: "e2", tenant: "t2", value: 2 });
});

it("reads no snapshot when the file does not exist", () => {
  expect(loadSnapshotFile(path.join(os.tmpdir(), "no-such-dir", "cosmos-snapshot.json"))).toBeUndefined();
});

it("rewrites the snapshot file only when the data changed", async () => {
  const client = await freshServer();
  await seed(client);
  const file = path.join(tempDir("snapshot-"), "nested", "cosmos-snapshot.json");
  const snapshotter = new CosmosSnapshotter(client, file);
  expect(await snapshotter.snapshot()).toBe(true);
  const first = readFileSync(file, "utf8");
  expect(await snapshotter.snapshot()).toBe(false);
  expect(readFileSync(file, "utf8")).toBe(first);
  await client.database("snapshot-db").container("profiles").items.create({ id: "p3" });
  expect(await snapshotter.snapshot()).toBe(true);
  expect(
    loadSnapshotFile(file)?.databases[0]?.containers.find((c) => c.id === "profiles")?.documents,
  ).toHaveLength(3);
});
