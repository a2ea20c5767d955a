import { z } from "../common/zod";
import { armErrorSchema } from "./errors";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./paging";
import { REQUEST_ID_PATTERN } from "./request-ids";
import type { ResponseHeader, RouteDefinition, RouteDoc } from "./route";

type JsonObject = Record<string, unknown>;

/** An entity tag (RFC 9110 §8.8.3): `"…"` of etagc characters (`!`, `#` to `~`, obs-text), maybe weak. */
const OPAQUE_TAG = '"[!#-~\\x80-\\xFF]*"';
const ENTITY_TAG = `(?:W/)?${OPAQUE_TAG}`;

/**
 * `*`, or a comma-separated list of entity tags, empty elements allowed (RFC 9110 §5.6.1.2), as
 * src/http/conditional.ts reads it; leading and trailing blanks are not part of a header's value.
 */
export const ENTITY_TAG_LIST_PATTERN = `^(?:\\*|(?:,[ \\t]*)*${ENTITY_TAG}(?:[ \\t]*,(?:[ \\t]*,)*[ \\t]*${ENTITY_TAG})*(?:[ \\t]*,)*)$`;

const TAG_DESCRIPTIONS: Record<string, string> = {
  AuthenticationProfile:
    "How a twins instance authenticates to a source: named JSON content, never a credential.",
  QueueEndpoint:
    "Service Bus queues a twins instance's events are delivered to, with an optional dead-letter location.",
  TwinEvents: "CloudEvents ingested for a twins instance and delivered to its queue endpoints.",
  ClusterAssessment:
    "Cluster assessments: read by readers, written by the producing system (Assessment Writer; under keys, the master key).",
  RoleAssignment:
    "Who may do what: roles given to principals at scopes (`/`, the profiles, or an ARM path), inherited downward.",
  Operations: "Readiness and this API description; no key needed.",
};

/** How the instance serving the document admits callers (its AUTH_MODE): the document describes that one only. */
export type AuthMode = "entra" | "keys";

/** Under keys, what each level takes (the Functions host checks the key before the service runs). */
const KEY_DESCRIPTIONS: Record<RouteDefinition["authLevel"], string> = {
  anonymous: "Needs no caller.",
  function:
    "Takes a function key (or the master key), in the x-functions-key header or the code query parameter.",
  admin:
    "Needs the master key, in the x-functions-key header or the code query parameter; a function key gets 401.",
};

/**
 * The schemes an operation takes: only those of the instance's mode, so a client generated from the
 * document never sends a bearer token where a key would go (`?code=`), nor a key to an instance that
 * takes tokens. Under keys the header comes first: a key in the query ends up in logs.
 */
const SECURITY: Record<AuthMode, Record<RouteDefinition["authLevel"], JsonObject[]>> = {
  entra: { anonymous: [], function: [{ entraId: [] }], admin: [{ entraId: [] }] },
  keys: {
    anonymous: [],
    function: [{ functionKey: [] }, { functionKeyInQuery: [] }],
    admin: [{ masterKey: [] }, { masterKeyInQuery: [] }],
  },
};

/** Who may call an operation, in the instance's mode. */
function callerDescription(route: RouteDefinition, mode: AuthMode): string {
  if (route.authLevel === "anonymous") return KEY_DESCRIPTIONS.anonymous;
  if (mode === "keys") return KEY_DESCRIPTIONS[route.authLevel];
  const linked = route.doc.linkedAction
    ? ` and \`${route.doc.linkedAction}\` at ${route.doc.linkedWhere ?? "the resource the body names"} (403 naming its id)`
    : "";
  return `Needs a bearer token whose principal holds a role allowing \`${route.action}\` at the resource it acts on or above (for a role assignment, its scope)${linked}.`;
}

const HEADER_REFS: Record<ResponseHeader, string> = {
  ETag: "#/components/headers/ETag",
  "Retry-After": "#/components/headers/RetryAfter",
};

/** Headers on every response the service itself writes (not on a 401 from the Functions host). */
const ID_HEADERS = {
  "x-ms-request-id": { $ref: "#/components/headers/RequestId" },
  "x-ms-correlation-request-id": { $ref: "#/components/headers/CorrelationRequestId" },
  "x-ms-client-request-id": { $ref: "#/components/headers/ClientRequestId" },
};

function responseHeaders(extra: readonly ResponseHeader[] = []): JsonObject {
  return { ...ID_HEADERS, ...Object.fromEntries(extra.map((name) => [name, { $ref: HEADER_REFS[name] }])) };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "InvalidRequestContent (details list every failing field; JSON that repeats a member name, holds a lone surrogate or a number beyond a double (RFC 7493), a body that is not UTF-8, a malformed If-Match or If-None-Match, a query parameter given twice with different values (code too), a $skipToken of another list, and an OData option ($orderby, $select, $expand, …) the operation does not take are refused too), InvalidFilter (a $filter the operation does not take: only role-assignment lists take one, of the forms their $filter parameter gives) or InvalidApiVersionParameter",
  401: "AuthenticationFailed (no bearer token) or InvalidAuthenticationToken (WWW-Authenticate says why)",
  403: "AuthorizationFailed: the caller's role assignments do not allow the action at this path (whether or not the resource exists)",
  404: "ResourceNotFound: the resource does not exist, or the path matches no route of this document",
  409: "QuotaExceeded, DeadLettersUnavailable (the endpoint has no usable dead-letter secret), EndpointInUse (event routes name the endpoint), RoleAssignmentExists or RoleAssignmentUpdateNotPermitted",
  412: "PreconditionFailed: If-Match does not list the current ETag (on a GET too), or If-None-Match lists it on a write",
  413: "PayloadTooLarge: the body is over 1 MiB",
  415: "UnsupportedMediaType: the Content-Type is not one the operation lists",
  500: "InternalServerError, or SecretsUnreadable (stored secrets sealed under a key this deployment lacks)",
  503: "ServiceUnavailable: a backing store cannot be reached (Retry-After is set)",
};

/** JSON Schema 2020-12 (what OpenAPI 3.1 uses) for a zod schema, as a request or a response. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    override: describeDiscriminator,
  });
  return rest;
}

/**
 * A discriminated union (the two kinds of endpoint, the two kinds of identity) is a `oneOf` whose
 * members each require their own constant of the property. Where one member may leave the
 * property out (a KeyBased body need not say so), nothing tells the members apart to a reader of
 * the document alone, so it is an `anyOf` (the members still exclude each other: each forbids the
 * other's fields). OpenAPI's `discriminator` is left out: it selects named schemas only, and the
 * document's are inline.
 */
function describeDiscriminator(context: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  const definition = (context.zodSchema as { _zod?: { def?: { type?: string; discriminator?: unknown } } })
    ._zod?.def;
  const members = context.jsonSchema.oneOf;
  if (definition?.type !== "union" || typeof definition.discriminator !== "string" || !Array.isArray(members))
    return;
  const property = definition.discriminator;
  const required = members.every((member) => {
    const names = (member as { required?: unknown }).required;
    return Array.isArray(names) && names.includes(property);
  });
  if (required) return;
  context.jsonSchema.anyOf = members;
  delete context.jsonSchema.oneOf;
}

function parameters(route: RouteDefinition, method: string): JsonObject[] {
  const doc = route.doc;
  const list: JsonObject[] = Object.entries(doc.pathParameters?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: "path",
    required: true,
    schema: jsonSchema(schema as z.ZodType, "input"),
  }));
  if (doc.apiVersions) {
    list.push({
      name: "api-version",
      in: "query",
      required: false,
      description:
        "Optional; when given, one of these (the newest is used when absent). Its name is read in any letter case (API-VERSION), as ARM reads query names; two different values are a 400.",
      schema: { type: "string", enum: [...doc.apiVersions] },
    });
  }
  if (doc.paged) {
    list.push(
      {
        name: "$top",
        in: "query",
        required: false,
        description: `Page size, default ${DEFAULT_PAGE_SIZE}. Its name is read in any letter case.`,
        schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE },
      },
      {
        name: "$skipToken",
        in: "query",
        required: false,
        description:
          "Continuation, as found in nextLink (base64url), of this list only: any other value, and a token of another list (another instance's endpoints, another project's assessments), is refused with 400.",
        schema: { type: "string", pattern: "^[A-Za-z0-9_-]+$" },
      },
    );
  }
  for (const parameter of doc.queryParameters ?? [])
    list.push({ in: "query", required: false, ...parameter });
  const conditional: Record<string, string> = {
    "If-Match":
      method === "get"
        ? "Answer only if the current ETag is listed as a strong tag (`*`: any current version); a weak tag (W/) never matches (RFC 9110 §13.1.1); else 412 PreconditionFailed. Evaluated before If-None-Match; a resource that does not exist is 404 whatever the header (RFC 9110 §13.2.1)."
        : "Write only if the current ETag is listed as a strong tag (`*`: if the resource exists); a weak tag (W/) never matches (RFC 9110 §13.1.1); else 412.",
    "If-None-Match":
      method === "get"
        ? "304 Not Modified, without a body, when the current ETag is listed."
        : "Write only if the current ETag is not listed (`*`: only if the resource does not exist); else 412.",
  };
  for (const header of doc.conditionalHeaders ?? []) {
    list.push({
      name: header,
      in: "header",
      required: false,
      description: conditional[header],
      schema: { type: "string", pattern: ENTITY_TAG_LIST_PATTERN },
    });
  }
  list.push(
    {
      name: "x-ms-correlation-request-id",
      in: "header",
      required: false,
      description: `Echoed in the response when it is ${REQUEST_ID_RULE}; else (or when absent) a new id is answered.`,
      schema: { type: "string" },
    },
    {
      name: "x-ms-client-request-id",
      in: "header",
      required: false,
      description: `The client's id for this request (a GUID, as Azure SDKs send it): echoed in the response when it is ${REQUEST_ID_RULE}, and logged; else not echoed.`,
      schema: { type: "string" },
    },
  );
  return list;
}

function responses(doc: RouteDoc, authLevel: RouteDefinition["authLevel"], mode: AuthMode): JsonObject {
  const result: JsonObject = {};
  for (const response of doc.responses) {
    result[String(response.status)] = {
      description: response.description,
      headers: responseHeaders(response.headers),
      ...(response.schema && {
        content: {
          "application/json": {
            schema: jsonSchema(response.schema, "output"),
            ...(response.example !== undefined && { example: response.example }),
          },
        },
      }),
    };
  }
  // Under keys no role is judged (no 403), and a 401 comes from the Functions host, before the service.
  const callerErrors = authLevel === "anonymous" ? [] : [401, 403, 500, 503];
  const errors = new Set(
    [...doc.errors, ...callerErrors].filter((status) => mode === "entra" || status !== 403),
  );
  for (const status of [...errors].sort()) {
    if (status === 401 && mode === "keys") {
      result["401"] = {
        description:
          "Unauthorized, from the Functions host before the service runs: no key, or a wrong one (a function key on a master-key operation)",
      };
      continue;
    }
    result[String(status)] = {
      description: ERROR_DESCRIPTIONS[status] ?? "Error",
      headers:
        status === 401
          ? { ...responseHeaders(), "WWW-Authenticate": { $ref: "#/components/headers/WwwAuthenticate" } }
          : responseHeaders(status === 503 ? ["Retry-After"] : []),
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } },
    };
  }
  if (!Object.keys(result).some((status) => status.startsWith("4"))) {
    // A route that refuses nothing itself can still be refused by the Functions host (414, 431).
    result["4XX"] = {
      description: "Refused by the Functions host before the route runs (e.g. 414 URI Too Long)",
    };
  }
  // A request for a path near this one that no route matches (a segment more or less) is a 404.
  result["404"] ??= {
    description:
      "ResourceNotFound: the path matches no route of this document (a segment more or less, a misspelt literal)",
    headers: responseHeaders(),
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } },
  };
  return result;
}

function operation(route: RouteDefinition, method: string, mode: AuthMode): JsonObject {
  const doc = route.doc;
  return {
    operationId: route.name,
    summary: doc.summary,
    description: `${doc.description ?? `${doc.summary}.`} ${callerDescription(route, mode)}`,
    tags: [doc.tag],
    security: SECURITY[mode][route.authLevel],
    "x-auth-level": route.authLevel,
    ...(route.authLevel !== "anonymous" && mode === "entra" && { "x-required-action": route.action }),
    parameters: parameters(route, method),
    ...(doc.requestBody && {
      requestBody: {
        required: !doc.requestBody.optional,
        content: Object.fromEntries(
          doc.requestBody.contentTypes.map((type) => [
            type,
            {
              schema: jsonSchema(doc.requestBody?.schema as z.ZodType, "input"),
              example: doc.requestBody?.example,
            },
          ]),
        ),
      },
    }),
    responses: responses(doc, route.authLevel, mode),
  };
}

/** What a request id the service echoes must be (REQUEST_ID_PATTERN, src/http/request-ids.ts). */
const REQUEST_ID_RULE = "1 to 128 of [A-Za-z0-9._:-]";

/** Response headers every operation refers to. */
const HEADERS = {
  RequestId: {
    description: "This request's id, for support.",
    schema: { type: "string", format: "uuid" },
  },
  CorrelationRequestId: {
    description: `The x-ms-correlation-request-id sent, when it is ${REQUEST_ID_RULE}; else a new id.`,
    schema: { type: "string", pattern: REQUEST_ID_PATTERN },
  },
  ClientRequestId: {
    description: `The x-ms-client-request-id sent, when it is ${REQUEST_ID_RULE}; absent otherwise.`,
    schema: { type: "string", pattern: REQUEST_ID_PATTERN },
  },
  ETag: {
    description:
      "The resource version's entity tag, strong and quoted: send it in If-Match or If-None-Match.",
    schema: { type: "string", pattern: `^${OPAQUE_TAG}$` },
  },
  RetryAfter: {
    description: "Seconds to wait before retrying.",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  WwwAuthenticate: {
    description:
      'The bearer challenge (RFC 6750): authorization_uri, and error="invalid_token" with error_description when a token came.',
    schema: { type: "string" },
  },
};

/** The Functions keys, as an instance under AUTH_MODE=keys takes them. */
const KEY_SCHEMES = {
  functionKey: {
    type: "apiKey",
    in: "header",
    name: "x-functions-key",
    description: "A function key (the master key is taken too).",
  },
  functionKeyInQuery: {
    type: "apiKey",
    in: "query",
    name: "code",
    description: "A function key (the master key is taken too), in the query.",
  },
  masterKey: {
    type: "apiKey",
    in: "header",
    name: "x-functions-key",
    description: "The master key (the host's _master key); a function key gets 401.",
  },
  masterKeyInQuery: {
    type: "apiKey",
    in: "query",
    name: "code",
    description: "The master key, in the query; a function key gets 401.",
  },
};

/** Where a built document says tokens come from when the service's authority is not known. */
const DEFAULT_AUTHORITY = "https://login.microsoftonline.com/organizations/v2.0";

function entraScheme(authority: string): JsonObject {
  return {
    type: "openIdConnect",
    openIdConnectUrl: `${authority.replace(/\/+$/, "")}/.well-known/openid-configuration`,
    description:
      "An Entra ID access token for the service's audience (AUTH_AUDIENCE), in 'Authorization: Bearer' only (never in the query string). " +
      "Role assignments (…/providers/Microsoft.Authorization/roleAssignments) decide what its principal may do.",
  };
}

/** The instance a document describes: how it admits callers, and (entra) where tokens come from. */
export interface DocumentAuth {
  mode: AuthMode;
  authority?: string;
}

const CALLERS: Record<AuthMode, string> = {
  entra:
    "Callers: an Entra ID bearer token (Authorization: Bearer), judged by role assignments at the resource an " +
    "operation acts on or at one of its ancestors, compared as typed ARM ids (case-insensitively; a name equal to a fixed " +
    "segment such as providers is only a name), inherited downward; every write records systemData from the caller. " +
    "This instance runs AUTH_MODE=entra: it takes no Functions key.",
  keys:
    "Callers: Functions keys (x-functions-key, or the code query parameter), as each operation says; every write records " +
    "systemData from the key's name. This instance runs AUTH_MODE=keys: it takes no bearer token.",
};

/**
 * The OpenAPI 3.1 description of the route table, generated from its zod schemas, for an instance
 * in the given AUTH_MODE (entra, the default, when not said): only the schemes it takes.
 */
export function buildOpenApiDocument(
  routes: readonly RouteDefinition[],
  serverUrl?: string,
  auth: DocumentAuth = { mode: "entra" },
): JsonObject {
  const { mode, authority = DEFAULT_AUTHORITY } = auth;
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const path = `/${route.route}`;
    paths[path] ??= {};
    for (const method of route.methods) {
      (paths[path] as JsonObject)[method.toLowerCase()] = operation(route, method.toLowerCase(), mode);
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Twin resource service",
      version: "2026-11-01",
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
      description:
        "AuthenticationProfile and QueueEndpoint resources, twin event ingest, and the ClusterAssessment lookup. " +
        "A resource's URL path is its id. Field names are camelCase; their snake_case spellings are accepted too. " +
        "A method a path does not list here answers 405 MethodNotAllowed, with an Allow header naming the methods it takes. " +
        "A path that matches no route answers 404 ResourceNotFound in the error shape. A path with an empty segment (//) or " +
        "a dot segment (., .., also percent-encoded as %2E%2E) is never folded into another path: 400 from the local host; " +
        "in Azure the platform routes first and names arrive decoded, and no name may be . or .. or hold /. " +
        "JSON with a repeated member name (after unescaping) is refused with 400, in a body and in JSON carried in a string; " +
        "so is a body that is not UTF-8. PUT takes application/json only; PATCH takes application/json or " +
        "application/merge-patch+json (a JSON Patch is 415). Query parameter names are read in any letter case, as ARM reads them. " +
        "Endpoint connection strings hold exactly Endpoint, SharedAccessKeyName, SharedAccessKey and EntityPath, and point " +
        "at an Azure Service Bus host; dead-letter URLs are https to an Azure blob host with a SAS query and no user " +
        "information; IP literals are refused, except that where ALLOW_LOOPBACK_ENDPOINTS is true (local runs only, never " +
        "in Azure) loopback hosts (127.0.0.0/8, [::1], localhost) are admitted, over plain AMQP and http. " +
        "Secrets never come back: SharedAccessKey and the SAS query are masked as ***. " +
        "Count quotas are exact under concurrent requests; a PUT without preconditions replaces whatever is current. " +
        "Every response the service writes carries x-ms-request-id and x-ms-correlation-request-id, and echoes an x-ms-client-request-id sent as an id. " +
        "Patterns are ECMA-262 regular expressions with the u flag, as JSON Schema 2020-12 reads them. " +
        CALLERS[mode],
    },
    // Served, it names the URL it was fetched from; built alone, the host that serves it.
    servers: [serverUrl ? { url: serverUrl } : { url: "/", description: "The host serving this document" }],
    tags: [...new Set(routes.map((route) => route.doc.tag))].map((name) => ({
      name,
      description: TAG_DESCRIPTIONS[name] ?? `The ${name} operations.`,
    })),
    paths,
    components: {
      schemas: { ErrorResponse: jsonSchema(armErrorSchema, "output") },
      headers:
        mode === "entra"
          ? HEADERS
          : Object.fromEntries(Object.entries(HEADERS).filter(([name]) => name !== "WwwAuthenticate")),
      securitySchemes: mode === "entra" ? { entraId: entraScheme(authority) } : KEY_SCHEMES,
    },
  };
}
