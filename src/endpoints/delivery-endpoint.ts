import type { CloudEvent } from "../events/cloud-event";
import type { ManagedIdentity } from "./managed-identity";

/**
 * Where delivery sends an endpoint's events: through a connection string (KeyBased), or to a
 * namespace (`host[:port]`) as a managed identity (IdentityBased).
 */
export type ServiceBusTarget =
  | { connectionString: string }
  | { namespace: string; identity?: ManagedIdentity };

/** Where an endpoint's dead letters go: a container through its SAS URL, or its plain URL as a managed identity. */
export type DeadLetterTarget = { sasUrl: string } | { url: string; identity?: ManagedIdentity };

/**
 * Why delivery cannot use an endpoint at all: this deployment cannot open a KeyBased endpoint's
 * secrets (sealed under a key it lacks, or altered), or an IdentityBased endpoint's settings are
 * no longer admitted (hosts or identities narrowed since it was written). A sentence, no secret.
 */
export interface Unusable {
  code: "SecretsUnreadable" | "SettingsNotAdmitted";
  reason: string;
}

/**
 * An endpoint as delivery uses it, either kind alike, its secrets opened: never for a response.
 * When it cannot be used, `sendTo` is absent and `unusable` says why: that endpoint's deliveries
 * fail, the instance's others go ahead.
 */
export type DeliveryEndpoint = {
  id: string;
  name: string;
  topic: string;
  /** The stored document's ETag: which settings these are (delivery-message.ts, endpoint-cache.ts). */
  version?: string;
  /**
   * When the endpoint was made: an endpoint deleted and made again under its name is another one,
   * and is owed none of the first one's retries (delivery-message.ts: `endpointCreatedAt`).
   */
  createdAt?: string;
  /**
   * Whether the instance's event routes let an event through to this endpoint (any of the routes
   * that name it is true); absent when no route names it, and it takes every event.
   */
  accepts?: (event: CloudEvent) => boolean;
} & (
  | {
      /** In order of preference: KeyBased, the primary then the secondary connection; IdentityBased, one. */
      sendTo: ServiceBusTarget[];
      /** Absent when the endpoint has none, or one this deployment no longer admits. */
      deadLetter?: DeadLetterTarget;
    }
  | { sendTo?: undefined; deadLetter?: undefined; unusable: Unusable }
);

/** The field an endpoint's dead-letter location is set in: what a message tells its owner to set. */
export function deadLetterField(endpoint: DeliveryEndpoint): "deadLetterStorageSecret" | "deadLetterUri" {
  return endpoint.sendTo?.some((target) => "namespace" in target)
    ? "deadLetterUri"
    : "deadLetterStorageSecret";
}

/** The URL a dead-letter target names (a SAS URL holds its credential: never log it). */
export function deadLetterUrl(target: DeadLetterTarget): string {
  return "sasUrl" in target ? target.sasUrl : target.url;
}

/** The identity a target is reached as (absent in the endpoint: the system-assigned one); undefined for a key or SAS. */
export function targetIdentity(target: ServiceBusTarget | DeadLetterTarget): ManagedIdentity | undefined {
  if ("connectionString" in target || "sasUrl" in target) return undefined;
  return target.identity ?? { type: "SystemAssigned" };
}
