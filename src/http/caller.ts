import type { HttpRequest } from "@azure/functions";
import { type ArmId, parseArmId } from "../auth/arm-id";
import { ANONYMOUS, type EntraPrincipal, type Principal } from "../auth/principal";
import { requestSegments, scopePath } from "../auth/scope";
import { AuthenticationFailed, AuthorizationFailed } from "../common/errors";
import type { LinkedAccess } from "../common/resource-service";
import type { Services } from "../services";
import { queryValue } from "./query";
import type { AuthLevel, Caller, RouteDefinition } from "./route";

/** What admission needs of a route: its row's key level, action, the id it acts on and its items. */
export type RouteAccess = Pick<RouteDefinition, "route" | "authLevel" | "action" | "actsOn" | "item">;

/**
 * Changes to who may do what: judged against the assignments as stored, never a host's cache, so
 * an Owner whose assignment was deleted on one host cannot grant itself access again on another.
 */
const ACCESS_CHANGES = new Set([
  "microsoft.authorization/roleassignments/write",
  "microsoft.authorization/roleassignments/delete",
]);

/** The key level the Functions host enforces: none under entra, where the app checks the token. */
export function hostAuthLevel(authLevel: AuthLevel, mode: "entra" | "keys"): AuthLevel {
  return mode === "entra" ? "anonymous" : authLevel;
}

/**
 * The one place that decides who calls (identifyCaller) and whether they may (authorizeCaller):
 * under `keys`, the Functions host has checked the key already (and which level it was); under
 * `entra`, the bearer token names the principal and its role assignments decide on the route's
 * action over the typed id the route acts on.
 */
export async function identifyCaller(
  access: RouteAccess,
  request: HttpRequest,
  services: Services,
): Promise<Principal> {
  if (access.authLevel === "anonymous") return ANONYMOUS;
  if (services.config.AUTH_MODE === "keys") return keyCaller(access, request);
  return authenticate(request, services);
}

/**
 * The caller of a request no token or grant needs looking up for (an anonymous route, or any route
 * under `keys`, where the host has checked the key), as identifyCaller and authorizeCaller would
 * admit it; undefined when they must run. Saves two promises a request on the common path.
 */
export function admittedWithoutLookup(
  access: RouteAccess,
  request: HttpRequest,
  services: Services,
): Caller | undefined {
  if (access.authLevel === "anonymous") return { principal: ANONYMOUS };
  if (services.config.AUTH_MODE !== "keys") return undefined;
  return { principal: keyCaller(access, request) };
}

/**
 * The key the host admitted, named by the route's level. The host checks `x-functions-key`, else
 * the first `code` in any letter case (Azure's AuthenticationLevelHandler takes the first value;
 * dev/local-host.ts does the same), so in `?code=<key>&code=wrong` the second is never checked:
 * a parameter given twice with different values is a 400 here as everywhere (src/http/query.ts),
 * never quoting either value.
 */
function keyCaller(access: RouteAccess, request: HttpRequest): Principal {
  queryValue(request, "code");
  return { kind: "key", keyName: access.authLevel === "admin" ? "_master" : "default" };
}

export async function authorizeCaller(
  access: RouteAccess,
  request: HttpRequest,
  services: Services,
  principal: Principal,
): Promise<Caller> {
  if (principal.kind !== "entra") return { principal };
  const { action, actsOn, item } = access;
  if (action === undefined || actsOn === undefined)
    throw new Error(`the route table's row for ${access.route} names no action or id to authorize`);
  const target = actsOn(request.params);
  const fresh = ACCESS_CHANGES.has(action.toLowerCase());
  const grants = await services.authorizer.grantsOf(principal, { fresh });
  const permits = (other: string, on: ArmId) => grants.permits(other, on);
  if (grants.permits(action, target)) return { principal, permits };
  const readableNames = item && grants.itemsPermitted(action, (name) => item(request.params, name));
  if (readableNames && readableNames.length > 0) return { principal, readableNames, permits };
  // The message names the requested id, as ARM's does; the decision was on the typed id above.
  throw new AuthorizationFailed(
    principal.objectId,
    action,
    scopePath(requestSegments(access.route, request.params)),
  );
}

/**
 * ARM's linked access check: a write that names another resource (an event route naming an
 * endpoint) needs `action` on that resource too, so a caller cannot learn of, or change the
 * deliveries of, a resource its roles do not reach. 403 naming that resource's id.
 */
export function requireLinkedAccess(caller: Caller, action: string, resourceId: string): void {
  linkedAccessOf(caller)?.require(action, resourceId);
}

/**
 * The caller's rights on other resources, for a service to ask on what it finds stored when it
 * writes (the endpoint a route named before its move or delete); undefined for a key caller.
 * Ids are parsed and compared as typed ARM ids; one that does not parse is permitted nothing.
 */
export function linkedAccessOf(caller: Caller): LinkedAccess | undefined {
  const { permits, principal } = caller;
  if (permits === undefined || principal.kind !== "entra") return undefined;
  const allows = (action: string, id: string) => {
    const target = parseArmId(id);
    return target !== undefined && permits(action, target);
  };
  return {
    permits: allows,
    require: (action, id) => {
      if (!allows(action, id)) throw new AuthorizationFailed(principal.objectId, action, id);
    },
  };
}

async function authenticate(request: HttpRequest, services: Services): Promise<EntraPrincipal> {
  // A token in a URL ends up in logs and histories: refused, even beside a good header (query
  // names compare case-insensitively, as everywhere in the service).
  if ([...request.query.keys()].some((name) => name.toLowerCase() === "access_token")) {
    throw new AuthenticationFailed(
      "A token in the query string is refused: send it in the 'Authorization: Bearer' header.",
      "InvalidAuthenticationToken",
      `${services.tokens.challenge()}, error="invalid_request"`,
    );
  }
  return services.tokens.principalOf(request.headers.get("authorization"));
}
