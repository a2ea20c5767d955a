import { type InstancePath, instanceKey } from "../endpoints/endpoint-path";
import type { DeliveryEndpoint, EndpointService } from "../endpoints/endpoint-service";

/** Where delivery reads an instance's endpoints, their secrets opened; the EndpointCache is one. */
export interface EndpointSource {
  forInstance(instance: InstancePath): Promise<DeliveryEndpoint[]>;
}

/**
 * An instance's endpoints, read from Cosmos at most once per `ttlMs` per instance: delivery of a
 * busy instance does not cost a query per message. A deleted or changed endpoint is seen within
 * the TTL (ENDPOINT_CACHE_SECONDS).
 */
export class EndpointCache implements EndpointSource {
  private readonly entries = new Map<string, { expires: number; endpoints: Promise<DeliveryEndpoint[]> }>();

  constructor(
    private readonly endpoints: EndpointService,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  forInstance(instance: InstancePath): Promise<DeliveryEndpoint[]> {
    const key = instanceKey(instance);
    const cached = this.entries.get(key);
    if (cached && cached.expires > this.now()) return cached.endpoints;
    const endpoints = this.endpoints.listForDelivery(instance);
    this.entries.set(key, { expires: this.now() + this.ttlMs, endpoints });
    // A failed read is not cached: the next message asks again.
    endpoints.catch(() => {
      if (this.entries.get(key)?.endpoints === endpoints) this.entries.delete(key);
    });
    return endpoints;
  }
}
