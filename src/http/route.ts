import type { HttpMethod, HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import type { Services } from "../services";

export type RouteHandler = (
  request: HttpRequest,
  context: InvocationContext,
  services: Services,
) => Promise<HttpResponseInit>;

/** The key a route needs, as the Functions host checks it: `admin` takes the master key only. */
export type AuthLevel = "anonymous" | "function" | "admin";

export interface RouteDefinition {
  /** The Azure Functions function name. */
  name: string;
  methods: HttpMethod[];
  /** Functions route template, relative to the (empty) route prefix. */
  route: string;
  authLevel: AuthLevel;
  handler: RouteHandler;
}
