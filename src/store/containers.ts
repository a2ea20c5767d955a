import type { CosmosClient, Database } from "@azure/cosmos";

/**
 * Every container the service uses, with the partition key that matches its main lookup.
 * infra/ creates the same containers; tests and the local launcher call ensureContainers.
 */
export const CONTAINERS = {
  // One partition for every profile: the count quota is checked and changed in the same
  // transactional batch as the profile it admits, and a batch stays within one partition.
  profiles: { id: "profiles", partitionKey: "/scope" },
  // One partition per digital twins instance, with that instance's quota ledger beside its endpoints.
  queueEndpoints: { id: "queueEndpoints", partitionKey: "/instanceKey" },
  clusterAssessments: { id: "clusterAssessments", partitionKey: "/projectKey" },
  // Partitioned by the assignment's own id: names are unique across scopes, and a create is atomic on
  // it. A principal's assignments are found with one (cross-partition) query, then cached.
  roleAssignments: { id: "roleAssignments", partitionKey: "/id" },
} as const;

export type ContainerName = keyof typeof CONTAINERS;

export async function ensureContainers(client: CosmosClient, databaseId: string): Promise<Database> {
  const { database } = await client.databases.createIfNotExists({ id: databaseId });
  for (const definition of Object.values(CONTAINERS)) {
    await database.containers.createIfNotExists({
      id: definition.id,
      partitionKey: { paths: [definition.partitionKey] },
    });
  }
  return database;
}
