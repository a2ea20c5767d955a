import { randomUUID } from "node:crypto";
import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { ANONYMOUS, describePrincipal, type Principal } from "../auth/principal";
import { describeError } from "../common/describe-error";
import { redactSecrets } from "../common/redact";
import type { Services } from "../services";
import { admittedWithoutLookup, authorizeCaller, identifyCaller, type RouteAccess } from "./caller";
import { errorResponse } from "./errors";
import { headerRecord, sortedByName } from "./header-record";
import { requestIdFrom } from "./request-ids";
import type { RouteHandler } from "./route";

/** A route as the conventions need it: how callers are admitted, and its handler. */
export interface ConventionalRoute extends RouteAccess {
  handler: RouteHandler;
}

/** The caller's x-ms-correlation-request-id when it is one (a short token), or a new one. */
export function correlationIdFrom(given: string | null | undefined): string {
  return requestIdFrom(given) ?? randomUUID();
}

function correlationId(request: HttpRequest): string {
  return correlationIdFrom(request.headers.get("x-ms-correlation-request-id"));
}

/**
 * The caller's x-ms-client-request-id, echoed as Azure services do when it is an id by the same
 * rule as the correlation id; anything else is neither echoed nor logged (none is made up: it is the
 * client's id, not the service's).
 */
function clientRequestId(request: HttpRequest): string | undefined {
  return requestIdFrom(request.headers.get("x-ms-client-request-id"));
}

/** The path of an absolute URL as Fetch normalised it (new URL(url).pathname, without parsing it again). */
function pathOf(url: string): string {
  const authority = url.indexOf("//");
  const start = url.indexOf("/", authority < 0 ? 0 : authority + 2);
  if (start < 0) return "/";
  const end = url.search(/[?#]/);
  return end < start ? url.slice(start) : url.slice(start, end);
}

/** The failure on one line (code and message, secrets masked), then its stack, for the log. */
function describeFailure(error: unknown): string {
  const stack = error instanceof Error && error.stack ? `\n${redactSecrets(error.stack)}` : "";
  return `${describeError(error)}${stack}`;
}

/**
 * What every route shares: the caller identified and authorized (src/http/caller.ts), request, correlation and client request ids,
 * one mapping of errors to ARM-shaped responses, and one log line a request naming the caller (path
 * only: the query may hold a key in `code`; never a token).
 */
export function withHttpConventions(route: ConventionalRoute, services: () => Services): HttpHandler {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const started = Date.now();
    const requestId = randomUUID();
    const correlation = correlationId(request);
    const clientId = clientRequestId(request);
    let response: HttpResponseInit;
    let principal: Principal = ANONYMOUS;
    try {
      let caller = admittedWithoutLookup(route, request, services());
      if (caller === undefined) {
        principal = await identifyCaller(route, request, services());
        caller = await authorizeCaller(route, request, services(), principal);
      }
      principal = caller.principal;
      response = await route.handler(request, context, services(), caller);
    } catch (error) {
      response = errorResponse(error);
      if ((response.status ?? 500) >= 500)
        context.error(`request ${requestId} failed: ${describeFailure(error)}`);
    }
    const headers = headerRecord(response.headers);
    headers["x-ms-request-id"] = requestId;
    headers["x-ms-correlation-request-id"] = correlation;
    if (clientId !== undefined) headers["x-ms-client-request-id"] = clientId;
    if (response.jsonBody !== undefined) headers["content-type"] = "application/json; charset=utf-8";
    // The host's request rows (sampled) count requests; this line, with the caller, is for looking into one.
    context.debug(
      `${request.method} ${pathOf(request.url)} -> ${response.status ?? 200} in ${Date.now() - started} ms (request ${requestId}, correlation ${correlation}${clientId === undefined ? "" : `, client request ${clientId}`}, ${describePrincipal(principal)})`,
    );
    return { ...response, headers: sortedByName(headers) };
  };
}
