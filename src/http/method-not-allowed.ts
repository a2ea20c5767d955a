import type { HttpMethod, HttpResponseInit } from "@azure/functions";
import { MethodNotAllowed } from "../common/errors";
import { armErrorBody } from "./errors";
import type { RouteDefinition, RouteHandler } from "./route";

/** An HTTP method token (RFC 9110 §5.6.2): anything else is not repeated back in a message. */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/;

/** 405 in the ARM error shape, with the Allow header RFC 9110 §15.5.6 asks for. */
export function methodNotAllowedResponse(
  method: string,
  path: string,
  allowed: readonly string[],
): HttpResponseInit {
  const shown = METHOD_TOKEN.test(method) ? `The method '${method}'` : "The method";
  const error = new MethodNotAllowed(`${shown} is not allowed on '${path}'; it takes ${allowed.join(", ")}.`);
  return { status: 405, headers: { Allow: allowed.join(", ") }, jsonBody: armErrorBody(error) };
}

export function methodNotAllowedHandler(allowed: readonly string[]): RouteHandler {
  return async (request) => methodNotAllowedResponse(request.method, new URL(request.url).pathname, allowed);
}

/** What a companion needs of a route: the route table's rows (as functions/http.ts passes them) and definitions alike. */
type RouteMethods = Pick<RouteDefinition, "name" | "methods" | "route">;

/** The methods of some routes, once each, in route-table order. */
export function methodsOf(routes: readonly RouteMethods[]): HttpMethod[] {
  return [...new Set(routes.flatMap((route) => route.methods))];
}

/**
 * The methods a companion function can answer in Azure. @azure/functions lists TRACE and CONNECT
 * too, but its HttpRequest is a Fetch Request, which refuses both (TypeError), so a function
 * registered for them could only fail with a 500; the platform answers them instead, as it does
 * tokens no function can register (FOO).
 */
const ANSWERABLE_METHODS: readonly HttpMethod[] = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
];

/** A function to register beside a route template, answering 405 to the methods its routes do not take. */
export interface MethodNotAllowedFunction {
  name: string;
  route: string;
  methods: HttpMethod[];
  handler: RouteHandler;
}

/**
 * In Azure a route answers only the methods it is registered for, so each route template gets a
 * companion for the rest. Anonymous, as the local host answers 405 before it checks a key.
 * Exact as long as no two templates of the table match the same path (a unit test holds that).
 */
export function methodNotAllowedFunctions(routes: readonly RouteMethods[]): MethodNotAllowedFunction[] {
  const byTemplate = new Map<string, RouteMethods[]>();
  for (const route of routes) byTemplate.set(route.route, [...(byTemplate.get(route.route) ?? []), route]);
  return [...byTemplate.entries()].flatMap(([template, sharing]) => {
    const allowed = methodsOf(sharing);
    const others = ANSWERABLE_METHODS.filter((method) => !allowed.includes(method));
    if (others.length === 0) return [];
    const first = sharing[0] as RouteMethods;
    return [
      {
        name: `${first.name}-methodNotAllowed`,
        route: template,
        methods: others,
        handler: methodNotAllowedHandler(allowed),
      },
    ];
  });
}
