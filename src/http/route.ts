import type { HttpMethod, HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import type { ArmId } from "../auth/arm-id";
import type { Principal } from "../auth/principal";
import type { z } from "../common/zod";
import type { Services } from "../services";

/** Who is calling, as src/http/caller.ts admitted them. */
export interface Caller {
  principal: Principal;
  /**
   * For a list the caller may read only part of (it holds roles on some of its items, none on the
   * list's scope): the names of the items it may read, which are all the list may show or page
   * through. Absent: the whole list is readable.
   */
  readableNames?: readonly string[];
  /**
   * Whether the caller's roles allow `action` on `target` too, for a write that names another
   * resource (an event route names an endpoint). Absent for a key caller: the key is the access.
   */
  permits?: (action: string, target: ArmId) => boolean;
}

export type RouteHandler = (
  request: HttpRequest,
  context: InvocationContext,
  services: Services,
  caller: Caller,
) => Promise<HttpResponseInit>;

/** The key a route needs, as the Functions host checks it: `admin` takes the master key only. */
export type AuthLevel = "anonymous" | "function" | "admin";

/** A response header a route sets itself (x-ms-request-id and x-ms-correlation-request-id are on every response). */
export type ResponseHeader = "ETag" | "Retry-After";

/** A conditional request header a route honours. */
export type ConditionalHeader = "If-Match" | "If-None-Match";

/** One documented response of a route. */
export interface ResponseDoc {
  status: number;
  description: string;
  schema?: z.ZodType;
  example?: unknown;
  /** The headers this response carries, besides the request and correlation ids. */
  headers?: readonly ResponseHeader[];
}

/** An optional query parameter a route takes, besides api-version and paging. */
export interface QueryParameterDoc {
  name: string;
  description: string;
  /** Its JSON Schema (2020-12), as the server reads it. */
  schema: Record<string, unknown>;
  examples?: Record<string, { summary: string; value: string }>;
}

/**
 * What the OpenAPI description says of a route: written next to the route, from the same zod
 * schemas the handler validates with, so the document cannot drift from the code.
 */
export interface RouteDoc {
  summary: string;
  /** More than the summary says; the generator adds what the route's key level requires. */
  description?: string;
  tag: string;
  /** Path parameters, as the handler validates them. */
  pathParameters?: z.ZodObject;
  /** The api-versions the route takes (absent: the route has no api-version). */
  apiVersions?: readonly string[];
  /** A list route: $top and $skipToken. */
  paged?: boolean;
  /** More query parameters the route takes (a role-assignment list's $filter), as OpenAPI writes them. */
  queryParameters?: readonly QueryParameterDoc[];
  /** The conditional headers the handler reads (none when absent). */
  conditionalHeaders?: readonly ConditionalHeader[];
  requestBody?: {
    schema: z.ZodType;
    example: unknown;
    contentTypes: readonly string[];
    /** The body may be left out (it is required by default). */
    optional?: boolean;
  };
  responses: ResponseDoc[];
  /** Error statuses this route can answer, besides 401 and 503, which every keyed route can. */
  errors: number[];
  /** The action a bearer caller needs on another resource too (a linked access check). */
  linkedAction?: string;
  /** Which resource that is, in words (default: "the resource the body names"). */
  linkedWhere?: string;
}

/** What a route's handler module provides: the handler and what the API description says of it. */
export interface RouteOperation {
  handler: RouteHandler;
  doc: RouteDoc;
}

/** Route parameters as the host matched them, one path segment each. */
export type RouteParams = Readonly<Record<string, string>>;

/**
 * One row of the route table (src/triggers/routes.ts): everything the host and the authorizer
 * need, written out, and a loader of the handler, called on the route's first request.
 */
export interface RouteRow {
  /** The Azure Functions function name. */
  name: string;
  method: HttpMethod;
  /** Functions route template, relative to the (empty) route prefix. */
  route: string;
  authLevel: AuthLevel;
  /** The ARM operation the route performs, for role assignments to allow (absent when anonymous). */
  action?: string;
  /** The typed id the request acts on (an extension resource's is its parent scope's). */
  actsOn?: (params: RouteParams) => ArmId;
  /** A list's item named `name`: a caller with roles on some items only sees those. */
  item?: (params: RouteParams, name: string) => ArmId;
  load: () => RouteOperation;
}

/** A row with its operation loaded: what the local host serves and the API description describes. */
export interface RouteDefinition extends Omit<RouteRow, "method" | "load">, RouteOperation {
  methods: HttpMethod[];
}
