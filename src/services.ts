import type { CosmosClient, Database } from "@azure/cosmos";
import type { QueueServiceClient } from "@azure/storage-queue";
import { AssessmentService } from "./assessments/assessment-service";
import { poisonQueueName } from "./common/poison-queue";
import type { AppConfig } from "./config";
import { DeadLetterRedelivery } from "./delivery/dead-letter-redelivery";
import { DeadLetterWriter } from "./delivery/dead-letter-writer";
import { DeliveryQueues } from "./delivery/delivery-queues";
import { EndpointCache } from "./delivery/endpoint-cache";
import { SenderPool } from "./delivery/sender-pool";
import { TwinEventDelivery } from "./delivery/twin-event-delivery";
import { allowListFromConfig } from "./endpoints/endpoint-allow-list";
import { EndpointService } from "./endpoints/endpoint-service";
import { EventPublisher } from "./events/event-publisher";
import { cosmosProbe, type Probe, storageProbe } from "./health/health-check";
import { ProfileService } from "./profiles/profile-service";
import { SecretBox } from "./secrets/secret-box";
import { CONTAINERS } from "./store/containers";
import { createCosmosClient } from "./store/cosmos-client";
import { createQueueServiceClient } from "./store/queue-service";

/** Everything a handler needs, made once per process and reused by every invocation. */
export interface Services {
  config: AppConfig;
  cosmos: CosmosClient;
  database: Database;
  queueService: QueueServiceClient;
  profiles: ProfileService;
  endpoints: EndpointService;
  assessments: AssessmentService;
  eventPublisher: EventPublisher;
  delivery: TwinEventDelivery;
  /** Re-queues an endpoint's dead letters (POST …/redeliverDeadLetters). */
  deadLetterRedelivery: DeadLetterRedelivery;
  senders: SenderPool;
  healthProbes: Record<string, Probe>;
}

export function createServices(config: AppConfig): Services {
  const cosmos = createCosmosClient(config);
  const database = cosmos.database(config.COSMOS_DATABASE);
  const queueService = createQueueServiceClient(config, {
    retryOptions: { maxTries: 3, tryTimeoutInMs: 10_000 },
  });
  const endpoints = new EndpointService(
    database.container(CONTAINERS.queueEndpoints.id),
    new SecretBox(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS ?? []),
    config.ENDPOINTS_PER_INSTANCE_MAX,
    allowListFromConfig(config),
  );
  const eventsQueue = queueService.getQueueClient(config.TWIN_EVENTS_QUEUE);
  const deliveryQueues = new DeliveryQueues(
    eventsQueue,
    queueService.getQueueClient(poisonQueueName(config.TWIN_EVENTS_QUEUE)),
  );
  const senders = new SenderPool(config.DELIVERY_SEND_TIMEOUT_MS, allowListFromConfig(config));
  return {
    config,
    cosmos,
    database,
    queueService,
    profiles: new ProfileService(database.container(CONTAINERS.profiles.id), {
      maxContentBytes: config.AUTH_PROFILE_CONTENT_MAX_BYTES,
      maxCount: config.AUTH_PROFILE_MAX_COUNT,
    }),
    endpoints,
    assessments: new AssessmentService(database.container(CONTAINERS.clusterAssessments.id)),
    eventPublisher: new EventPublisher(eventsQueue),
    delivery: new TwinEventDelivery({
      endpointSource: new EndpointCache(endpoints, config.ENDPOINT_CACHE_SECONDS * 1000),
      senders,
      deadLetterWriter: new DeadLetterWriter(),
      deliveryQueues,
      settings: {
        maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
        ttlSeconds: config.DELIVERY_TTL_SECONDS,
        backoff: {
          baseSeconds: config.DELIVERY_BACKOFF_BASE_SECONDS,
          capSeconds: config.DELIVERY_BACKOFF_CAP_SECONDS,
        },
      },
    }),
    deadLetterRedelivery: new DeadLetterRedelivery(deliveryQueues),
    senders,
    healthProbes: { cosmos: cosmosProbe(database), storage: storageProbe(queueService) },
  };
}

/** Closes the connections a Services holds (the local host and tests stop cleanly with it). */
export async function disposeServices(services: Services): Promise<void> {
  await services.senders.close();
  services.cosmos.dispose();
}
