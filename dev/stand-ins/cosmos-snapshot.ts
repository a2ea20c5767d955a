import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { CosmosClient } from "@azure/cosmos";

/**
 * The local Cosmos server keeps everything in memory. A snapshot is every database, container
 * (with its partition key) and document, read and written back through the ordinary REST API,
 * so data survives a clean restart of `npm start`. Documents get new ETags on restore.
 */
export interface CosmosSnapshot {
  takenAt: string;
  databases: {
    id: string;
    containers: { id: string; partitionKeyPaths: string[]; documents: Record<string, unknown>[] }[];
  }[];
}

const SYSTEM_PROPERTIES = ["_rid", "_self", "_etag", "_ts", "_attachments"];

function userDocument(document: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...document };
  for (const key of SYSTEM_PROPERTIES) delete copy[key];
  return copy;
}

export async function takeSnapshot(client: CosmosClient): Promise<CosmosSnapshot> {
  const { resources: databases } = await client.databases.readAll().fetchAll();
  const snapshot: CosmosSnapshot = { takenAt: new Date().toISOString(), databases: [] };
  for (const { id: databaseId } of databases) {
    const database = client.database(databaseId);
    const { resources: containers } = await database.containers.readAll().fetchAll();
    const entry: CosmosSnapshot["databases"][number] = { id: databaseId, containers: [] };
    for (const definition of containers) {
      const { resources: documents } = await database
        .container(definition.id)
        .items.readAll<Record<string, unknown> & { id: string }>()
        .fetchAll();
      entry.containers.push({
        id: definition.id,
        partitionKeyPaths: definition.partitionKey?.paths ?? ["/id"],
        documents: documents.map(userDocument),
      });
    }
    snapshot.databases.push(entry);
  }
  return snapshot;
}

export async function restoreSnapshot(client: CosmosClient, snapshot: CosmosSnapshot): Promise<number> {
  let restored = 0;
  for (const databaseEntry of snapshot.databases) {
    const { database } = await client.databases.createIfNotExists({ id: databaseEntry.id });
    for (const containerEntry of databaseEntry.containers) {
      const { container } = await database.containers.createIfNotExists({
        id: containerEntry.id,
        partitionKey: { paths: containerEntry.partitionKeyPaths },
      });
      for (const document of containerEntry.documents) {
        await container.items.upsert(document);
        restored++;
      }
    }
  }
  return restored;
}

/** Written to a temporary file and renamed, so a crash mid-write never leaves half a snapshot. */
export function saveSnapshotFile(file: string, snapshot: CosmosSnapshot): void {
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, JSON.stringify(snapshot));
  renameSync(temporary, file);
}

export function loadSnapshotFile(file: string): CosmosSnapshot | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, "utf8")) as CosmosSnapshot;
}
