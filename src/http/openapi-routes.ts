import { z } from "../common/zod";
import { publicBaseUrl } from "./public-url";
import type { RouteDefinition, RouteOperation } from "./route";

/** GET /openapi.json (anonymous): the description of `routes()`, built once per process. */
export function openApiOperation(routes: () => readonly RouteDefinition[]): RouteOperation {
  let document: Record<string, unknown> | undefined;
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
      if (document === undefined) {
        // The document's builder loads with the first request for it, not with the entry points:
        // no other route uses it.
        const { buildOpenApiDocument } = require("./openapi") as typeof import("./openapi");
        document = buildOpenApiDocument(routes(), undefined, services.config.AUTH_AUTHORITY);
      }
      const servers = [{ url: publicBaseUrl(request, services.config) }];
      return { status: 200, jsonBody: { ...document, servers } };
    },
  };
}
