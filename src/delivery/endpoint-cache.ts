import { type InstancePath, instanceKey } from "../endpoints/endpoint-path";
import type {
  DeliveryEndpoint,
  DeliveryRoute,
  EndpointService,
  InstanceDelivery,
} from "../endpoints/endpoint-service";
import { compileFilter, type EventPredicate } from "../event-routes/filter";
import type { CloudEvent } from "../events/cloud-event";

/** A version of one endpoint that a message is owed under (delivery-message.ts: `endpointVersion`). */
export interface WantedVersion {
  endpointName: string;
  version: string;
}

/** Where delivery reads an instance's endpoints, their secrets opened; the EndpointCache is one. */
export interface EndpointSource {
  /** With `wanted`: endpoints that hold that version of that endpoint, or newer. */
  forInstance(instance: InstancePath, wanted?: WantedVersion): Promise<DeliveryEndpoint[]>;
}

/** Filters compiled, by their text: a reload compiles only the filters it had not seen. */
type Compiled = Map<string, EventPredicate>;

interface Entry {
  expires: number;
  endpoints: Promise<DeliveryEndpoint[]>;
  /** Versions asked for that this entry, read after they were asked for, has replaced: older ones. */
  superseded: Set<string>;
  compiled: Compiled;
}

function holds(endpoints: DeliveryEndpoint[], entry: Entry, wanted: WantedVersion): boolean {
  if (entry.superseded.has(wanted.version)) return true;
  const name = wanted.endpointName.toLowerCase();
  return endpoints.some(
    (endpoint) => endpoint.name.toLowerCase() === name && endpoint.version === wanted.version,
  );
}

const NOTHING: EventPredicate = () => false;

/**
 * An instance's endpoints, read from Cosmos at most once per `ttlMs` per instance: delivery of a
 * busy instance does not cost a query per message. A deleted or changed endpoint is seen within
 * the TTL (ENDPOINT_CACHE_SECONDS), except by a message that names the version it is owed under
 * (a redelivery, and the retries that follow it): when the entry does not hold that version, the
 * instance is read again at once, and the entry replaced, whatever its age. Each host has its own
 * cache, so the version travels in the message, not in a signal between hosts. A version the fresh
 * read does not hold either (the endpoint changed again since) is remembered as superseded, so
 * further messages owed under it do not read again. A host that changes an instance's event routes
 * forgets the instance at once (`forget`); other hosts see the change within the TTL.
 *
 * The same query reads the instance's event routes: each endpoint that routes name comes with
 * their filters, compiled once per filter text and kept with the entry (a reload reuses them).
 *
 * Entries are kept in the order they were read, so the expired ones are at the front: each call
 * drops them, secrets and all. The cache holds the instances delivered to within the TTL, not every
 * instance this host has ever seen.
 */
export class EndpointCache implements EndpointSource {
  private readonly entries = new Map<string, Entry>();

  /** Instances whose endpoints are held, for checks. */
  get size(): number {
    return this.entries.size;
  }

  constructor(
    private readonly endpoints: Pick<EndpointService, "listForDelivery">,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly warn: (line: string) => void = (line) => console.warn(line),
  ) {}

  async forInstance(instance: InstancePath, wanted?: WantedVersion): Promise<DeliveryEndpoint[]> {
    const key = instanceKey(instance);
    // Read before the expired entries go: a reload reuses the filters its expired entry compiled.
    let entry = this.entries.get(key);
    this.dropExpired();
    if (!entry || entry.expires <= this.now()) entry = this.load(key, instance, new Set(), entry);
    const endpoints = await entry.endpoints;
    if (wanted === undefined || holds(endpoints, entry, wanted)) return endpoints;
    // Messages that waited on the same stale entry read again once, not once each.
    let fresh = this.entries.get(key);
    if (fresh === undefined || fresh === entry)
      fresh = this.load(key, instance, new Set(entry.superseded), entry);
    const current = await fresh.endpoints;
    if (!holds(current, fresh, wanted)) fresh.superseded.add(wanted.version);
    return current;
  }

  /** The next message for the instance reads it afresh (its routes changed on this host). */
  forget(instance: InstancePath): void {
    this.entries.delete(instanceKey(instance));
  }

  private load(key: string, instance: InstancePath, superseded: Set<string>, previous?: Entry): Entry {
    const compiled: Compiled = new Map();
    const endpoints = this.endpoints
      .listForDelivery(instance)
      .then((found) => this.routed(found, previous?.compiled, compiled));
    const entry = { expires: this.now() + this.ttlMs, endpoints, superseded, compiled };
    // Deleted first, so that the entry goes to the back: the map stays in the order of expiry.
    this.entries.delete(key);
    this.entries.set(key, entry);
    // A failed read is not cached: the next message asks again.
    endpoints.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry;
  }

  /** The endpoints, each that routes name with the test of its events. */
  private routed(found: InstanceDelivery, before: Compiled | undefined, compiled: Compiled) {
    if (found.routes.length === 0) return found.endpoints;
    const tests = new Map<string, EventPredicate[]>();
    for (const route of found.routes) {
      const endpoint = route.endpointName.toLowerCase();
      tests.set(endpoint, [...(tests.get(endpoint) ?? []), this.compile(route, before, compiled)]);
    }
    return found.endpoints.map((endpoint) => {
      const routes = tests.get(endpoint.name.toLowerCase());
      if (routes === undefined) return endpoint;
      const [only] = routes;
      const accepts =
        routes.length === 1 && only ? only : (event: CloudEvent) => routes.some((test) => test(event));
      return { ...endpoint, accepts };
    });
  }

  private compile(route: DeliveryRoute, before: Compiled | undefined, compiled: Compiled): EventPredicate {
    let test = compiled.get(route.filter) ?? before?.get(route.filter);
    if (test === undefined) {
      try {
        test = compileFilter(route.filter);
      } catch (error) {
        // Written around the service, or under another grammar: it lets nothing through, said once per read.
        this.warn(
          `event route '${route.name}': its stored filter does not parse (${(error as Error).message}); it lets no event through`,
        );
        test = NOTHING;
      }
    }
    compiled.set(route.filter, test);
    return test;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.expires > now) return;
      this.entries.delete(key);
    }
  }
}
