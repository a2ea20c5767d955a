import type { HttpRequest } from "@azure/functions";
import { ANONYMOUS, type EntraPrincipal, type Principal } from "../auth/principal";
import { isListRoute, routeAction } from "../auth/route-action";
import { pathSegments, requestSegments, scopeKeyOf, scopePath } from "../auth/scope";
import { AuthenticationFailed, AuthorizationFailed } from "../common/errors";
import type { Services } from "../services";
import type { AuthLevel, Caller } from "./route";

/** What admission needs of a route: its template, key level and methods. */
export interface RouteAccess {
  route: string;
  authLevel: AuthLevel;
}

/** The key level the Functions host enforces: none under entra, where the app checks the token. */
export function hostAuthLevel(authLevel: AuthLevel, mode: "entra" | "keys"): AuthLevel {
  return mode === "entra" ? "anonymous" : authLevel;
}

/**
 * The one place that decides who calls (identifyCaller) and whether they may (authorizeCaller):
 * under `keys`, the Functions host has checked the key already (and which level it was); under
 * `entra`, the bearer token names the principal and its role assignments decide on the route's
 * action at the request's scope.
 */
export async function identifyCaller(
  access: RouteAccess,
  request: HttpRequest,
  services: Services,
): Promise<Principal> {
  if (access.authLevel === "anonymous") return ANONYMOUS;
  if (services.config.AUTH_MODE === "keys")
    return { kind: "key", keyName: access.authLevel === "admin" ? "_master" : "default" };
  return authenticate(request, services);
}

/**
 * The caller of a request no token or grant needs looking up for (an anonymous route, or any route
 * under `keys`, where the host has checked the key), as identifyCaller and authorizeCaller would
 * admit it; undefined when they must run. Saves two promises a request on the common path.
 */
export function admittedWithoutLookup(access: RouteAccess, services: Services): Caller | undefined {
  if (access.authLevel === "anonymous") return { principal: ANONYMOUS };
  if (services.config.AUTH_MODE !== "keys") return undefined;
  return { principal: { kind: "key", keyName: access.authLevel === "admin" ? "_master" : "default" } };
}

export async function authorizeCaller(
  access: RouteAccess,
  request: HttpRequest,
  services: Services,
  principal: Principal,
): Promise<Caller> {
  if (principal.kind !== "entra") return { principal };
  const action = routeAction(access.route, request.method);
  const segments = requestSegments(access.route, request.params);
  const scope = scopeKeyOf(segments);
  const grants = await services.authorizer.grantsOf(principal);
  if (grants.permits(action, scope)) return { principal };
  if (isListRoute(access.route, request.method) && grants.permitsBelow(action, scope)) {
    return { principal, mayRead: (path) => grants.permits(action, scopeKeyOf(pathSegments(path))) };
  }
  throw new AuthorizationFailed(principal.objectId, action, scopePath(segments));
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
