import type { HttpMethod, HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import type { z } from "zod";
import type { Services } from "../services";

export type RouteHandler = (
  request: HttpRequest,
  context: InvocationContext,
  services: Services,
) => Promise<HttpResponseInit>;

/** The key a route needs, as the Functions host checks it: `admin` takes the master key only. */
export type AuthLevel = "anonymous" | "function" | "admin";

/** One documented response of a route. */
export interface ResponseDoc {
  status: number;
  description: string;
  schema?: z.ZodType;
  example?: unknown;
}

/**
 * What the OpenAPI description says of a route: written next to the route, from the same zod
 * schemas the handler validates with, so the document cannot drift from the code.
 */
export interface RouteDoc {
  summary: string;
  tag: string;
  /** Path parameters, as the handler validates them. */
  pathParameters?: z.ZodObject;
  /** The api-versions the route takes (absent: the route has no api-version). */
  apiVersions?: readonly string[];
  /** A list route: $top and $skipToken. */
  paged?: boolean;
  requestBody?: { schema: z.ZodType; example: unknown; contentTypes: readonly string[] };
  responses: ResponseDoc[];
  /** Error statuses this route can answer, besides 401 and 503, which every keyed route can. */
  errors: number[];
}

export interface RouteDefinition {
  /** The Azure Functions function name. */
  name: string;
  methods: HttpMethod[];
  /** Functions route template, relative to the (empty) route prefix. */
  route: string;
  authLevel: AuthLevel;
  handler: RouteHandler;
  doc: RouteDoc;
}
