import type { CosmosClient, Database } from "@azure/cosmos";

/**
 * Every container the service uses, with the partition key that matches its main lookup.
 * infra/ creates the same containers; tests and the local launcher call ensureContainers.
 */
export const CONTAINERS = {
  authenticationProfiles: { id: "authenticationProfiles", partitionKey: "/id" },
  queueEndpoints: { id: "queueEndpoints", partitionKey: "/instanceKey" },
  clusterAssessments: { id: "clusterAssessments", partitionKey: "/projectKey" },
  quotas: { id: "quotas", partitionKey: "/id" },
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
