import type { CosmosClient, Database } from "@azure/cosmos";
import type { QueueServiceClient } from "@azure/storage-queue";
import type { AssessmentService } from "./assessments/assessment-service";
import type { Authorizer } from "./auth/authorizer";
import type { TokenValidator } from "./auth/token-validator";
import { poisonQueueName } from "./common/poison-queue";
import { type AppConfig, adminPrincipals } from "./config";
import type { DeadLetterMarks } from "./delivery/dead-letter-mark";
import type { DeadLetterRedelivery } from "./delivery/dead-letter-redelivery";
import type { DeliveryQueues } from "./delivery/delivery-queues";
import type { EndpointCache, EndpointSource } from "./delivery/endpoint-cache";
import type { SenderPool } from "./delivery/sender-pool";
import type { TwinEventDelivery } from "./delivery/twin-event-delivery";
import { allowListFromConfig } from "./endpoints/endpoint-allow-list";
import type { InstancePath } from "./endpoints/endpoint-path";
import type { EndpointService } from "./endpoints/endpoint-service";
import type { EventRouteService } from "./event-routes/event-route-service";
import type { EventPublisher } from "./events/event-publisher";
import { cosmosProbe, type Probe, pendingSecretsProbe, storageProbe } from "./health/health-check";
import type { ProfileService } from "./profiles/profile-service";
import type { RoleAssignmentService } from "./role-assignments/role-assignment-service";
import { pendingSecretsReason, secretKeys, secretSealer } from "./secrets/secret-keys";
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
  eventRoutes: EventRouteService;
  assessments: AssessmentService;
  eventPublisher: EventPublisher;
  delivery: TwinEventDelivery;
  /** Re-queues an endpoint's dead letters (POST …/redeliverDeadLetters). */
  deadLetterRedelivery: DeadLetterRedelivery;
  senders: SenderPool;
  healthProbes: Record<string, Probe>;
  /** Validates bearer tokens (AUTH_MODE=entra only). */
  tokens: TokenValidator;
  /** Decides what a principal may do, from its role assignments (AUTH_MODE=entra only). */
  authorizer: Authorizer;
  roleAssignments: RoleAssignmentService;
}

/** Makes a property on first read and keeps it: from then on it is a plain data property. */
function lazy<K extends keyof Services>(services: Services, key: K, make: () => Services[K]): void {
  Object.defineProperty(services, key, {
    configurable: true,
    enumerable: true,
    get() {
      const value = make();
      Object.defineProperty(services, key, { value, configurable: true, enumerable: true, writable: true });
      return value;
    },
  });
}

/** `make` run on the first call, its value returned by every call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** The property when it has been made (or was never lazy); undefined while it is still to make. */
function made<K extends keyof Services>(services: Services, key: K): Services[K] | undefined {
  const property = Object.getOwnPropertyDescriptor(services, key);
  return property && "value" in property ? (property.value as Services[K]) : undefined;
}

/**
 * Every part is made, and its module loaded, on first use, not here: the Functions worker loads the
 * entry points (and with them this) before the first invocation, and most parts load an Azure SDK
 * that takes tens to hundreds of milliseconds to load (the Cosmos DB SDK about 300 ms, the Service
 * Bus, blob and queue SDKs over 100 ms each). An HTTP request loads the Cosmos DB SDK only; the Service Bus and blob
 * SDKs load with the first delivery, dead letter or redelivery, the queue SDK with the first ingest
 * (or health check, or delivery). The settings are validated before this (loadConfig).
 */
export function createServices(config: AppConfig): Services {
  const services = { config } as Services;
  // One client for the events queue and one DeliveryQueues (which creates each queue once), shared
  // by ingest, delivery and redelivery, as when everything was made up front.
  const eventsQueue = once(() => services.queueService.getQueueClient(config.TWIN_EVENTS_QUEUE));
  const deliveryQueues = once(() => {
    const { DeliveryQueues } =
      require("./delivery/delivery-queues") as typeof import("./delivery/delivery-queues");
    return new DeliveryQueues(
      eventsQueue(),
      services.queueService.getQueueClient(poisonQueueName(config.TWIN_EVENTS_QUEUE)),
    );
  });
  lazy(services, "cosmos", () => createCosmosClient(config));
  lazy(services, "database", () => services.cosmos.database(config.COSMOS_DATABASE));
  lazy(services, "queueService", () =>
    createQueueServiceClient(config, { retryOptions: { maxTries: 3, tryTimeoutInMs: 10_000 } }),
  );
  lazy(services, "profiles", () => profileService(services));
  lazy(services, "endpoints", () => endpointService(services));
  // Delivery's cache of endpoints and routes, once made: a route change on this host reaches it at once.
  let endpointCache: EndpointCache | undefined;
  lazy(services, "eventRoutes", () =>
    eventRouteService(services, (instance) => endpointCache?.forget(instance)),
  );
  lazy(services, "assessments", () => assessmentService(services));
  // The key of the service's mark on its dead letters, shared by the writer and redelivery.
  // While a key setting is pending this throws the 503, and so does every part made with it:
  // delivery and redelivery (the queue function defers its messages first, twin-events-function.ts).
  const deadLetterMarks = once(() => {
    const { DeadLetterMarks } =
      require("./delivery/dead-letter-mark") as typeof import("./delivery/dead-letter-mark");
    const { current, previous } = secretKeys(config);
    return new DeadLetterMarks(current, previous);
  });
  lazy(services, "eventPublisher", () => {
    const { EventPublisher } =
      require("./events/event-publisher") as typeof import("./events/event-publisher");
    return new EventPublisher(eventsQueue(), undefined, undefined, { lingerMs: config.INGEST_LINGER_MS });
  });
  lazy(services, "senders", () => senderPool(config));
  lazy(services, "delivery", () => {
    endpointCache = newEndpointCache(services);
    return twinEventDelivery(services, endpointCache, deliveryQueues(), deadLetterMarks());
  });
  lazy(services, "deadLetterRedelivery", () => {
    boundTokenRequests(config);
    const { DeadLetterRedelivery } =
      require("./delivery/dead-letter-redelivery") as typeof import("./delivery/dead-letter-redelivery");
    return new DeadLetterRedelivery(deliveryQueues(), deadLetterMarks());
  });
  lazy(services, "tokens", () => tokenValidator(config));
  lazy(services, "roleAssignments", () => {
    const { RoleAssignmentService } =
      require("./role-assignments/role-assignment-service") as typeof import("./role-assignments/role-assignment-service");
    // This host forgets a principal's grants as soon as it changes them; other hosts within the cache period.
    return new RoleAssignmentService(
      services.database.container(CONTAINERS.roleAssignments.id),
      (principalId) => made(services, "authorizer")?.forget(principalId),
    );
  });
  lazy(services, "authorizer", () => authorizer(services));
  lazy(services, "healthProbes", () => healthProbes(services));
  return services;
}

function assessmentService(services: Services): AssessmentService {
  const { AssessmentService } =
    require("./assessments/assessment-service") as typeof import("./assessments/assessment-service");
  return new AssessmentService(services.database.container(CONTAINERS.clusterAssessments.id));
}

/** The secrets check is there only while a key setting is pending: it says which one. */
function healthProbes(services: Services): Record<string, Probe> {
  const pending = pendingSecretsReason(services.config);
  return {
    cosmos: cosmosProbe(services.database),
    storage: storageProbe(services.queueService),
    ...(pending !== undefined && { secrets: pendingSecretsProbe(pending) }),
  };
}

function tokenValidator(config: AppConfig): TokenValidator {
  const { TokenValidator } = require("./auth/token-validator") as typeof import("./auth/token-validator");
  if (!config.AUTH_AUTHORITY || !config.AUTH_AUDIENCE)
    throw new Error("AUTH_AUTHORITY and AUTH_AUDIENCE are required when AUTH_MODE is entra");
  return new TokenValidator({
    authority: config.AUTH_AUTHORITY,
    audiences: config.AUTH_AUDIENCE,
    ...(config.AUTH_ALLOWED_TENANTS !== undefined && { allowedTenants: config.AUTH_ALLOWED_TENANTS }),
  });
}

function authorizer(services: Services): Authorizer {
  const { config } = services;
  const { Authorizer } = require("./auth/authorizer") as typeof import("./auth/authorizer");
  const { grantsOf } =
    require("./role-assignments/role-assignment-store") as typeof import("./role-assignments/role-assignment-store");
  return new Authorizer({
    load: (objectId) => grantsOf(services.roleAssignments.documents, objectId),
    admins: adminPrincipals(config),
    cacheMs: config.AUTH_CACHE_SECONDS * 1000,
  });
}

function profileService(services: Services): ProfileService {
  const { config } = services;
  const { ProfileService } =
    require("./profiles/profile-service") as typeof import("./profiles/profile-service");
  return new ProfileService(services.database.container(CONTAINERS.profiles.id), {
    maxContentBytes: config.AUTH_PROFILE_CONTENT_MAX_BYTES,
    maxCount: config.AUTH_PROFILE_MAX_COUNT,
  });
}

function endpointService(services: Services): EndpointService {
  const { config } = services;
  const { EndpointService } =
    require("./endpoints/endpoint-service") as typeof import("./endpoints/endpoint-service");
  return new EndpointService(
    services.database.container(CONTAINERS.queueEndpoints.id),
    secretSealer(config),
    config.ENDPOINTS_PER_INSTANCE_MAX,
    {
      allowList: allowListFromConfig(config),
      attachedIdentities: config.ENDPOINT_USER_ASSIGNED_IDENTITIES,
    },
  );
}

function eventRouteService(services: Services, changed: (instance: InstancePath) => void): EventRouteService {
  const { EventRouteService } =
    require("./event-routes/event-route-service") as typeof import("./event-routes/event-route-service");
  return new EventRouteService(
    services.database.container(CONTAINERS.queueEndpoints.id),
    services.config.ROUTES_PER_INSTANCE_MAX,
    changed,
  );
}

function newEndpointCache(services: Services): EndpointCache {
  const { EndpointCache } =
    require("./delivery/endpoint-cache") as typeof import("./delivery/endpoint-cache");
  return new EndpointCache(services.endpoints, services.config.ENDPOINT_CACHE_SECONDS * 1000);
}

/**
 * The process's managed-identity credentials (shared by sends, dead-letter writes and redelivery)
 * end every token request within this deployment's IDENTITY_TOKEN_TIMEOUT_MS. Delivery sets it
 * through its sender pool (`services.senders`), redelivery, which sends nothing, on its own.
 */
function boundTokenRequests(config: AppConfig): void {
  const { processCredentials } =
    require("./delivery/managed-identity-credentials") as typeof import("./delivery/managed-identity-credentials");
  processCredentials.setTokenTimeout(config.IDENTITY_TOKEN_TIMEOUT_MS);
}

function senderPool(config: AppConfig): SenderPool {
  boundTokenRequests(config);
  const { SenderPool } = require("./delivery/sender-pool") as typeof import("./delivery/sender-pool");
  return new SenderPool(config.DELIVERY_SEND_TIMEOUT_MS, allowListFromConfig(config));
}

function twinEventDelivery(
  services: Services,
  endpointSource: EndpointSource,
  deliveryQueues: DeliveryQueues,
  marks: DeadLetterMarks,
): TwinEventDelivery {
  const { config } = services;
  const { TwinEventDelivery } =
    require("./delivery/twin-event-delivery") as typeof import("./delivery/twin-event-delivery");
  const { DeadLetterWriter } =
    require("./delivery/dead-letter-writer") as typeof import("./delivery/dead-letter-writer");
  return new TwinEventDelivery({
    endpointSource,
    senders: services.senders,
    deadLetterWriter: new DeadLetterWriter(marks),
    deliveryQueues,
    settings: {
      maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
      ttlSeconds: config.DELIVERY_TTL_SECONDS,
      backoff: {
        baseSeconds: config.DELIVERY_BACKOFF_BASE_SECONDS,
        capSeconds: config.DELIVERY_BACKOFF_CAP_SECONDS,
      },
    },
  });
}

/** Closes the connections a Services holds (the local host and tests stop cleanly with it). */
export async function disposeServices(services: Services): Promise<void> {
  // Only what was made: closing must not load an SDK the process never used.
  await made(services, "senders")?.close();
  made(services, "cosmos")?.dispose();
}
