import type { HttpRequest } from "@azure/functions";
import { type z, z as zod } from "zod";
import type { Services } from "../services";
import type { Page, PageRequest } from "../shared/page";
import { isNotModified, type Preconditions } from "../shared/preconditions";
import type { Versioned } from "../shared/versioned";
import { checkApiVersion } from "./api-version";
import { readPreconditions } from "./conditional";
import { camelCaseKeys } from "./field-names";
import { listBody, readPageRequest } from "./paging";
import { readJsonObjectBody } from "./request-body";
import { deleted, jsonResponse, noContent, notModified } from "./responses";
import type { AuthLevel, RouteDefinition } from "./route";
import { parseOrThrow } from "./validation";

/** What a declarative resource's service offers; every resource answers HTTP the same way. */
export interface ResourceService<CollectionPath, ItemPath, Resource, Put, Patch> {
  list(path: CollectionPath, page: PageRequest): Promise<Page<Resource>>;
  get(path: ItemPath): Promise<Versioned<Resource>>;
  put(
    path: ItemPath,
    body: Put,
    preconditions: Preconditions,
  ): Promise<{ versioned: Versioned<Resource>; created: boolean }>;
  /** Absent for resources that are only ever replaced whole. */
  patch?(path: ItemPath, body: Patch, preconditions: Preconditions): Promise<Versioned<Resource>>;
  delete(path: ItemPath, preconditions: Preconditions): Promise<boolean>;
}

export interface ResourceRoutesSpec<CollectionPath, ItemPath, Resource, Put, Patch> {
  /** Function-name prefix, e.g. "authenticationProfiles". */
  name: string;
  /** For the API description: the resource in words ("authentication profile") and its tag. */
  noun: string;
  tag: string;
  /** What GET answers: the handler's output, described. */
  resourceSchema: z.ZodType<Resource>;
  examples: { put: Put; resource: Resource; patch?: Patch };
  collectionRoute: string;
  itemRoute: string;
  apiVersions: readonly string[];
  collectionPath: z.ZodObject & z.ZodType<CollectionPath>;
  itemPath: z.ZodObject & z.ZodType<ItemPath>;
  putBody: z.ZodType<Put>;
  /** Absent: no PATCH route. */
  patchBody?: z.ZodType<Patch>;
  /** Who may write (PUT, PATCH, DELETE); reads always take the function key. Default "function". */
  writeAuthLevel?: AuthLevel;
  service: (services: Services) => ResourceService<CollectionPath, ItemPath, Resource, Put, Patch>;
}

/**
 * The five routes of a declarative resource (list, GET, PUT, PATCH, DELETE) with the shared
 * conventions: api-version, path validation, snake_case aliases, conditional requests, paging.
 */
export function resourceRoutes<CollectionPath, ItemPath, Resource, Put, Patch>(
  spec: ResourceRoutesSpec<CollectionPath, ItemPath, Resource, Put, Patch>,
): RouteDefinition[] {
  const writeAuthLevel = spec.writeAuthLevel ?? "function";
  const itemPath = (request: HttpRequest): ItemPath => {
    checkApiVersion(request, spec.apiVersions);
    return parseOrThrow(spec.itemPath, request.params);
  };
  const body = async <B>(request: HttpRequest, schema: z.ZodType<B>): Promise<B> =>
    parseOrThrow(schema, camelCaseKeys(await readJsonObjectBody(request)));
  const common = { tag: spec.tag, apiVersions: spec.apiVersions };
  const item = { ...common, pathParameters: spec.itemPath };
  const json = ["application/json"] as const;
  const writeBody = (schema: z.ZodType, example: unknown) => ({ schema, example, contentTypes: json });
  const resource = { schema: spec.resourceSchema, example: spec.examples.resource };
  const routes: RouteDefinition[] = [
    {
      name: `${spec.name}-list`,
      doc: {
        ...common,
        summary: `List ${spec.noun}s`,
        pathParameters: spec.collectionPath,
        paged: true,
        responses: [
          {
            status: 200,
            description: `A page of ${spec.noun}s; follow nextLink until it is absent`,
            schema: listSchema(spec.resourceSchema),
            example: { value: [spec.examples.resource] },
          },
        ],
        errors: [400],
      },
      methods: ["GET"],
      route: spec.collectionRoute,
      authLevel: "function",
      handler: async (request, _context, services) => {
        checkApiVersion(request, spec.apiVersions);
        const path = parseOrThrow(spec.collectionPath, request.params);
        const page = await spec.service(services).list(path, readPageRequest(request));
        return jsonResponse(200, listBody(request, page, services.config));
      },
    },
    {
      name: `${spec.name}-get`,
      doc: {
        ...item,
        summary: `Get (or import) a ${spec.noun}`,
        responses: [
          { status: 200, description: `The ${spec.noun}, with its ETag`, ...resource },
          { status: 304, description: "Not modified: If-None-Match names the current ETag" },
        ],
        errors: [400, 404],
      },
      methods: ["GET"],
      route: spec.itemRoute,
      authLevel: "function",
      handler: async (request, _context, services) => {
        const { resource, etag } = await spec.service(services).get(itemPath(request));
        if (isNotModified(readPreconditions(request).ifNoneMatch, etag)) return notModified(etag);
        return jsonResponse(200, resource, etag);
      },
    },
    {
      name: `${spec.name}-put`,
      doc: {
        ...item,
        summary: `Create or replace a ${spec.noun}`,
        requestBody: writeBody(spec.putBody, spec.examples.put),
        responses: [
          { status: 200, description: `Replaced`, ...resource },
          { status: 201, description: `Created`, ...resource },
        ],
        errors: [400, 409, 412, 413, 415],
      },
      methods: ["PUT"],
      route: spec.itemRoute,
      authLevel: writeAuthLevel,
      handler: async (request, _context, services) => {
        const path = itemPath(request);
        const put = await body(request, spec.putBody);
        const service = spec.service(services);
        const { versioned, created } = await service.put(path, put, readPreconditions(request));
        return jsonResponse(created ? 201 : 200, versioned.resource, versioned.etag);
      },
    },
    {
      name: `${spec.name}-delete`,
      doc: {
        ...item,
        summary: `Delete a ${spec.noun}`,
        responses: [
          { status: 200, description: "Deleted" },
          { status: 204, description: "There was nothing to delete" },
        ],
        errors: [400, 412],
      },
      methods: ["DELETE"],
      route: spec.itemRoute,
      authLevel: writeAuthLevel,
      handler: async (request, _context, services) => {
        const existed = await spec.service(services).delete(itemPath(request), readPreconditions(request));
        return existed ? deleted() : noContent();
      },
    },
  ];
  const patchBody = spec.patchBody;
  if (patchBody) {
    routes.push({
      name: `${spec.name}-patch`,
      doc: {
        ...item,
        summary: `Change some fields of a ${spec.noun}`,
        requestBody: writeBody(patchBody, spec.examples.patch ?? {}),
        responses: [{ status: 200, description: "Changed", ...resource }],
        errors: [400, 404, 409, 412, 413, 415],
      },
      methods: ["PATCH"],
      route: spec.itemRoute,
      authLevel: writeAuthLevel,
      handler: async (request, _context, services) => {
        const service = spec.service(services);
        if (!service.patch) throw new Error(`${spec.name}: a PATCH route without a patch operation`);
        const path = itemPath(request);
        const patch = await body(request, patchBody);
        const { resource, etag } = await service.patch(path, patch, readPreconditions(request));
        return jsonResponse(200, resource, etag);
      },
    });
  }
  return routes;
}

/** The list envelope around a resource schema. */
export function listSchema(resource: z.ZodType) {
  return zod.object({ value: zod.array(resource), nextLink: zod.url().optional() });
}
