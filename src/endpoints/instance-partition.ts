import { ResourceConflict } from "../common/errors";
import { nameKey } from "../common/name-key";
import type { DocumentStore } from "../store/document-store";
import { type Alongside, QuotaLedger, type QuotaScope } from "../store/quota-ledger";

/*
 * What one digital twins instance's partition of the queueEndpoints container holds. Its endpoints
 * have their lower-cased names as ids, and names start with a letter or a digit; every other
 * document's id starts with "$": the endpoints' quota ledger, the event routes and their ledger.
 * So one query of the partition reads the endpoints and the routes that decide their events.
 */

/** The event routes' count quota, which also keeps each route's endpoint. */
export const ROUTE_LEDGER_ID = "$quota:eventRoutes";
const ROUTE_ID_PREFIX = "$eventRoute:";

/** Cosmos DB SQL conditions on `c` that pick one kind of document of a partition. */
export const ENDPOINTS_ONLY = `NOT STARTSWITH(c.id, "$")`;
export const ROUTES_ONLY = `STARTSWITH(c.id, "${ROUTE_ID_PREFIX}")`;
export const ENDPOINTS_AND_ROUTES = `(${ENDPOINTS_ONLY} OR ${ROUTES_ONLY})`;

export function isRouteDocument(document: { id: string }): boolean {
  return document.id.startsWith(ROUTE_ID_PREFIX);
}

/** An event route's document id: its name's key, prefixed, so that no endpoint can have it. */
export function routeDocumentId(routeName: string): string {
  return `${ROUTE_ID_PREFIX}${nameKey(routeName)}`;
}

function routeNameKey(documentId: string): string {
  return documentId.slice(ROUTE_ID_PREFIX.length);
}

/** What the route ledger needs of a route's document. */
export interface RoutedDocument {
  id: string;
  endpointName: string;
}

/**
 * The ledger of an instance's event routes: their count (ROUTES_PER_INSTANCE_MAX) and each one's
 * endpoint. Every write of a route and every delete of an endpoint writes it on the version read,
 * so a route can neither be made for an endpoint being deleted nor outlive its endpoint.
 */
export function routeLedger<T extends RoutedDocument>(
  documents: Pick<DocumentStore<T>, "readOther" | "batch" | "queryAll">,
): QuotaLedger<T> {
  return new QuotaLedger<T>(documents, "instanceKey", {
    ledgerId: ROUTE_LEDGER_ID,
    counted: ROUTES_ONLY,
    refersTo: (route) => nameKey(route.endpointName),
  });
}

export function routeQuotaScope(instancePartition: string, limit: number): QuotaScope {
  return {
    partitionKey: instancePartition,
    limit,
    noun: "event routes of this digital twins instance",
    setting: "ROUTES_PER_INSTANCE_MAX",
  };
}

/**
 * For an endpoint's delete: refuses (409) while routes name the endpoint, else the route ledger
 * written back unchanged in the delete's batch, so a route made for it meanwhile fails one of them.
 * The 409 names the routes `mayRead` lets it (by their names' keys; all when absent) and counts the
 * others, without a name.
 */
export function noRouteNames(
  ledger: QuotaLedger<RoutedDocument>,
  instancePartition: string,
  endpointName: string,
  mayRead: (routeNameKey: string) => boolean = () => true,
): Promise<Alongside> {
  const endpointKey = nameKey(endpointName);
  return ledger.guard(instancePartition, ({ refersTo }) => {
    const routes = [...refersTo]
      .filter(([, endpoint]) => endpoint === endpointKey)
      .map(([routeId]) => routeNameKey(routeId));
    if (routes.length === 0) return;
    throw new ResourceConflict(
      `The endpoint '${endpointName}' is named by ${routesNamed(routes.filter(mayRead), routes.length)}; delete ${routes.length > 1 ? "them" : "it"}, or point ${routes.length > 1 ? "them" : "it"} at another endpoint, first.`,
      "EndpointInUse",
    );
  });
}

/** "the event routes 'a', 'b'", "the event route 'a' and 2 other routes", "2 event routes". */
function routesNamed(readable: string[], count: number): string {
  const others = count - readable.length;
  const routes = (n: number) => (n > 1 ? "routes" : "route");
  if (readable.length === 0) return count > 1 ? `${count} event routes` : "an event route";
  const named = `the event ${routes(readable.length)} ${readable.map((name) => `'${name}'`).join(", ")}`;
  return others === 0 ? named : `${named} and ${others} other ${routes(others)}`;
}
