import { z } from "zod";
import { armErrorSchema } from "./errors";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./paging";
import type { RouteDefinition, RouteDoc } from "./route";

type JsonObject = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "InvalidRequestContent (details list every failing field; JSON that repeats a member name, RFC 7493, is refused too) or InvalidApiVersionParameter",
  401: "Unauthorized: no key, or a wrong one",
  404: "ResourceNotFound",
  409: "QuotaExceeded",
  412: "PreconditionFailed: If-Match / If-None-Match",
  413: "PayloadTooLarge: the body is over 1 MiB",
  415: "UnsupportedMediaType: the body is not JSON",
  500: "InternalServerError, or SecretsUnreadable (stored secrets sealed under a key this deployment lacks)",
  503: "ServiceUnavailable: a backing store cannot be reached (Retry-After is set)",
};

/** JSON Schema 2020-12 (what OpenAPI 3.1 uses) for a zod schema, as a request or a response. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  });
  return rest;
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
      description: "Optional; when given, one of these (the newest is used when absent).",
      schema: { type: "string", enum: [...doc.apiVersions] },
    });
  }
  if (doc.paged) {
    list.push(
      {
        name: "$top",
        in: "query",
        required: false,
        description: `Page size, default ${DEFAULT_PAGE_SIZE}.`,
        schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE },
      },
      {
        name: "$skipToken",
        in: "query",
        required: false,
        description: "Continuation, as found in nextLink.",
        schema: { type: "string" },
      },
    );
  }
  const conditional: Record<string, string[]> = {
    get: ["If-None-Match"],
    put: ["If-Match", "If-None-Match"],
    patch: ["If-Match"],
    delete: ["If-Match"],
  };
  if (doc.pathParameters && doc.tag !== "TwinEvents") {
    for (const header of conditional[method] ?? []) {
      list.push({ name: header, in: "header", required: false, schema: { type: "string" } });
    }
  }
  list.push({
    name: "x-ms-correlation-request-id",
    in: "header",
    required: false,
    description: "Echoed in the response; generated when absent.",
    schema: { type: "string" },
  });
  return list;
}

function responses(doc: RouteDoc, authLevel: RouteDefinition["authLevel"]): JsonObject {
  const result: JsonObject = {};
  const headers = { "x-ms-request-id": { schema: { type: "string" } }, ETag: { schema: { type: "string" } } };
  for (const response of doc.responses) {
    result[String(response.status)] = {
      description: response.description,
      headers,
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
  const errors = new Set([...doc.errors, ...(authLevel === "anonymous" ? [] : [401, 500, 503])]);
  for (const status of [...errors].sort()) {
    result[String(status)] = {
      description: ERROR_DESCRIPTIONS[status] ?? "Error",
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } },
    };
  }
  return result;
}

function operation(route: RouteDefinition, method: string): JsonObject {
  const doc = route.doc;
  const keyed = [{ functionKey: [] }, { functionKeyInQuery: [] }];
  return {
    operationId: route.name,
    summary: doc.summary,
    tags: [doc.tag],
    ...(route.authLevel === "admin" && {
      description:
        "Needs the master key (a function key gets 401): for the system that produces these resources.",
    }),
    security: route.authLevel === "anonymous" ? [] : keyed,
    "x-auth-level": route.authLevel,
    parameters: parameters(route, method),
    ...(doc.requestBody && {
      requestBody: {
        required: true,
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
    responses: responses(doc, route.authLevel),
  };
}

/** The OpenAPI 3.1 description of the route table, generated from its zod schemas. */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], serverUrl?: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const path = `/${route.route}`;
    paths[path] ??= {};
    for (const method of route.methods) {
      (paths[path] as JsonObject)[method.toLowerCase()] = operation(route, method.toLowerCase());
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Twin resource service",
      version: "2026-11-01",
      description:
        "AuthenticationProfile and QueueEndpoint resources, twin event ingest, and the ClusterAssessment lookup. " +
        "A resource's URL path is its id. Field names are camelCase; their snake_case spellings are accepted too. " +
        "A method a path does not list here answers 405 MethodNotAllowed, with an Allow header naming the methods it takes. " +
        "JSON with a repeated member name (after unescaping) is refused with 400, in a body and in JSON carried in a string. " +
        "Endpoint connection strings hold exactly Endpoint, SharedAccessKeyName, SharedAccessKey and EntityPath, and point " +
        "at an Azure Service Bus host; dead-letter URLs are https to an Azure blob host with a SAS query and no user " +
        "information; IP literals are refused. Secrets never come back: SharedAccessKey and the SAS query are masked as ***. " +
        "Count quotas are exact under concurrent requests; a PUT without preconditions replaces whatever is current.",
    },
    ...(serverUrl && { servers: [{ url: serverUrl }] }),
    tags: [...new Set(routes.map((route) => route.doc.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ErrorResponse: jsonSchema(armErrorSchema, "output") },
      securitySchemes: {
        functionKey: { type: "apiKey", in: "header", name: "x-functions-key" },
        functionKeyInQuery: { type: "apiKey", in: "query", name: "code" },
      },
    },
  };
}
