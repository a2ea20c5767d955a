import type { HttpRequest } from "@azure/functions";
import type { z } from "zod";
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
  collectionRoute: string;
  itemRoute: string;
  apiVersions: readonly string[];
  collectionPath: z.ZodType<CollectionPath>;
  itemPath: z.ZodType<ItemPath>;
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
  const routes: RouteDefinition[] = [
    {
      name: `${spec.name}-list`,
      methods: ["GET"],
      route: spec.collectionRoute,
      authLevel: "function",
      handler: async (request, _context, services) => {
        checkApiVersion(request, spec.apiVersions);
        const path = parseOrThrow(spec.collectionPath, request.params);
        const page = await spec.service(services).list(path, readPageRequest(request));
        return jsonResponse(200, listBody(request, page));
      },
    },
    {
      name: `${spec.name}-get`,
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
