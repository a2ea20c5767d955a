import { z } from "../common/zod";
import { publicBaseUrl } from "./public-url";
import type { RouteDefinition, RouteOperation } from "./route";

/**
 * GET /openapi.json (anonymous): the description of `routes()` for the serving instance, with the
 * schemes of its AUTH_MODE only. Built once per mode and authority (one, in a deployed process;
 * hosts of both modes share a process in tests).
 */
export function openApiOperation(routes: () => readonly RouteDefinition[]): RouteOperation {
  const documents = new Map<string, Record<string, unknown>>();
  return {
    doc: {
      summary: "This API description (OpenAPI 3.1)",
      tag: "Operations",
      responses: [
        { status: 200, description: "The OpenAPI document", schema: z.record(z.string(), z.unknown()) },
      ],
      errors: [],
    },
    handler: async (request, _context, services) => {
      const { AUTH_MODE: mode, AUTH_AUTHORITY: authority } = services.config;
      const key = `${mode} ${authority ?? ""}`;
      let document = documents.get(key);
      if (document === undefined) {
        // The document's builder loads with the first request for it, not with the entry points:
        // no other route uses it.
        const { buildOpenApiDocument } = require("./openapi") as typeof import("./openapi");
        document = buildOpenApiDocument(routes(), undefined, { mode, authority });
        documents.set(key, document);
      }
      const servers = [{ url: publicBaseUrl(request, services.config) }];
      return { status: 200, jsonBody: { ...document, servers } };
    },
  };
}
