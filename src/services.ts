import type { CosmosClient, Database } from "@azure/cosmos";
import { QueueServiceClient } from "@azure/storage-queue";
import type { AppConfig } from "./config";
import { EndpointService } from "./endpoints/endpoint-service";
import { cosmosProbe, type Probe, storageProbe } from "./health/health-check";
import { ProfileService } from "./profiles/profile-service";
import { SecretBox } from "./secrets/secret-box";
import { CONTAINERS } from "./store/containers";
import { createCosmosClient } from "./store/cosmos-client";
import { QuotaLedger } from "./store/quota-ledger";

/** Everything a handler needs, made once per process and reused by every invocation. */
export interface Services {
  config: AppConfig;
  cosmos: CosmosClient;
  database: Database;
  queues: QueueServiceClient;
  profiles: ProfileService;
  endpoints: EndpointService;
  healthProbes: Record<string, Probe>;
}

export function createServices(config: AppConfig): Services {
  const cosmos = createCosmosClient(config);
  const database = cosmos.database(config.COSMOS_DATABASE);
  const queues = QueueServiceClient.fromConnectionString(config.AzureWebJobsStorage, {
    retryOptions: { maxTries: 2, tryTimeoutInMs: 3000 },
  });
  const quotas = new QuotaLedger(database.container(CONTAINERS.quotas.id));
  return {
    config,
    cosmos,
    database,
    queues,
    profiles: new ProfileService(database.container(CONTAINERS.authenticationProfiles.id), quotas, {
      maxContentBytes: config.AUTH_PROFILE_CONTENT_MAX_BYTES,
      maxCount: config.AUTH_PROFILE_MAX_COUNT,
    }),
    endpoints: new EndpointService(
      database.container(CONTAINERS.queueEndpoints.id),
      quotas,
      new SecretBox(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS ?? []),
      config.ENDPOINTS_PER_INSTANCE_MAX,
    ),
    healthProbes: { cosmos: cosmosProbe(database), storage: storageProbe(queues) },
  };
}

/** Closes the connections a Services holds (the local host and tests stop cleanly with it). */
export async function disposeServices(services: Services): Promise<void> {
  services.cosmos.dispose();
}
