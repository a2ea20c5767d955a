import type { HttpRequest } from "@azure/functions";
import { actorOf } from "../auth/principal";
import { type ErrorDetail, InvalidRequestContent, invalidRequest } from "../common/errors";
import { checkPreconditions, isNotModified } from "../common/preconditions";
import type { ResourceService } from "../common/resource-service";
import { type z, z as zod } from "../common/zod";
import type { Services } from "../services";
import { checkApiVersion } from "./api-version";
import { linkedAccessOf, requireLinkedAccess } from "./caller";
import { readPreconditions } from "./conditional";
import { camelCaseKeys } from "./field-names";
import { listBody, listIdentity, PAGING_OPTIONS, readPageRequest } from "./paging";
import { refuseUntakenOptions } from "./query";
import { JSON_ONLY, type MediaTypes, PATCH_MEDIA_TYPES, readJsonObjectBody } from "./request-body";
import { deleted, jsonResponse, noContent, notModified } from "./responses";
import type { RouteOperation } from "./route";
import { parseOrThrow } from "./validation";

/**
 * What the routes of one declarative resource share; each resource's routes file lists its
 * routes by name, built from this by listRoute, getRoute, putRoute, patchRoute and deleteRoute.
 */
export interface ResourceSpec<CollectionPath, ItemPath, Resource, Put, Patch> {
  /** For the API description: the resource in words ("authentication profile") and its tag. */
  noun: string;
  tag: string;
  /** What GET answers: the handler's output, described. */
  resourceSchema: z.ZodType<Resource>;
  /** Bodies as sent (a schema may turn what it reads into richer values), and a resource as answered. */
  examples: { put: unknown; resource: Resource; patch?: unknown };
  /** The list's route template: with its parameters, what a skip token is bound to (paging.ts). */
  collectionRoute: string;
  apiVersions: readonly string[];
  collectionPath: z.ZodObject & z.ZodType<CollectionPath>;
  itemPath: z.ZodObject & z.ZodType<ItemPath>;
  putBody: z.ZodType<Put>;
  /**
   * Problems of a body that only the service sees (where an endpoint may point), for the fields
   * its schema read: added to the schema's own when the body is refused, so one 400 lists every
   * field's problems, rather than one field's hiding another's until the first is fixed.
   */
  moreBodyProblems?: (body: Record<string, unknown>, services: Services) => ErrorDetail[];
  service: (services: Services) => ResourceService<CollectionPath, ItemPath, Resource, Put, Patch>;
  /** When a DELETE may be refused with 409, and why (an endpoint that event routes name). */
  deleteConflict?: string;
  /**
   * Another resource a write names, which the caller must be allowed `action` on too
   * (requireLinkedAccess): `id` gives it from a PUT body, `patchId` from a PATCH body; undefined
   * when the body names none. `stored` says, for the API description, where the service asks
   * `action` of what is stored as well (it gets the caller's access with every PUT and DELETE):
   * on a PUT, besides the resource the body names, and on a DELETE.
   */
  linked?: {
    action: string;
    id: (path: ItemPath, body: Put) => string | undefined;
    patchId?: (path: ItemPath, body: Patch) => string | undefined;
    stored?: { put: string; delete: string };
  };
}

/** A resource's spec, its types inferred from the schemas and the service. */
export function resourceSpec<C, I, R, P, Q>(spec: ResourceSpec<C, I, R, P, Q>): ResourceSpec<C, I, R, P, Q> {
  return spec;
}

// biome-ignore lint/suspicious/noExplicitAny: a spec of any resource, for the helpers below
type AnySpec = ResourceSpec<any, any, any, any, any>;

/** The list envelope around a resource schema. */
export function listSchema(resource: z.ZodType) {
  return zod.object({ value: zod.array(resource), nextLink: zod.url().optional() });
}

function itemPathOf<ItemPath>(
  spec: Pick<ResourceSpec<unknown, ItemPath, unknown, unknown, unknown>, "apiVersions" | "itemPath">,
  request: HttpRequest,
) {
  checkApiVersion(request, spec.apiVersions);
  return parseOrThrow(spec.itemPath, request.params);
}

async function bodyOf<B>(
  request: HttpRequest,
  schema: z.ZodType<B>,
  accepted: MediaTypes,
  more?: (body: Record<string, unknown>) => ErrorDetail[],
): Promise<B> {
  const body = camelCaseKeys(await readJsonObjectBody(request, accepted)) as Record<string, unknown>;
  try {
    return parseOrThrow(schema, body);
  } catch (error) {
    const added = error instanceof InvalidRequestContent && more ? more(body) : [];
    if (added.length === 0) throw error;
    throw invalidRequest([...(error as InvalidRequestContent).details, ...added]);
  }
}

function itemDoc(spec: AnySpec) {
  return { tag: spec.tag, apiVersions: spec.apiVersions, pathParameters: spec.itemPath };
}

function resourceDoc(spec: AnySpec) {
  return { schema: spec.resourceSchema, example: spec.examples.resource };
}

function writeBody(schema: z.ZodType, example: unknown, contentTypes: MediaTypes) {
  return { schema, example, contentTypes };
}

/** GET of the collection: one page, with an absolute nextLink while more remain. */
export function listRoute<C, I, R, P, Q>(spec: ResourceSpec<C, I, R, P, Q>): RouteOperation {
  return {
    doc: {
      tag: spec.tag,
      apiVersions: spec.apiVersions,
      summary: `List ${spec.noun}s`,
      description: `One page of the ${spec.noun}s; while more remain, nextLink is the absolute URL of the next page.`,
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
    handler: async (request, _context, services, caller) => {
      checkApiVersion(request, spec.apiVersions);
      refuseUntakenOptions(request, PAGING_OPTIONS);
      const path = parseOrThrow(spec.collectionPath, request.params);
      const list = listIdentity(spec.collectionRoute, request.params);
      // A caller who may read some items only lists those: the store pages through them alone, so
      // no page, count or continuation token can tell of the others.
      const page = await spec
        .service(services)
        .list(path, readPageRequest(request, list), caller.readableNames);
      return jsonResponse(200, listBody(request, page, services.config, list));
    },
  };
}

/**
 * GET of one resource (also how it is imported): 412 when If-Match does not list its ETag (compared
 * strongly, as writes compare it: checkPreconditions), then 304 when If-None-Match names it (RFC
 * 9110 §13.2.2's order). A resource that does not exist is 404 whatever the headers: without them
 * the answer would not be 2xx, so they are not evaluated (§13.2.1).
 */
export function getRoute<C, I, R, P, Q>(spec: ResourceSpec<C, I, R, P, Q>): RouteOperation {
  return {
    doc: {
      ...itemDoc(spec),
      summary: `Get (or import) a ${spec.noun}`,
      description: `The ${spec.noun} and its ETag; 412 when If-Match does not list the current ETag; 304 without a body when If-None-Match names it.`,
      conditionalHeaders: ["If-Match", "If-None-Match"],
      responses: [
        {
          status: 200,
          description: `The ${spec.noun}, with its ETag`,
          ...resourceDoc(spec),
          headers: ["ETag"],
        },
        { status: 304, description: "Not modified: If-None-Match names the current ETag", headers: ["ETag"] },
      ],
      errors: [400, 404, 412],
    },
    handler: async (request, _context, services) => {
      const path = itemPathOf(spec, request);
      refuseUntakenOptions(request, []);
      // Read before the store is: a malformed header is a 400 whether or not the resource exists.
      const { ifMatch, ifNoneMatch } = readPreconditions(request, ["If-Match", "If-None-Match"]);
      const { resource, etag } = await spec.service(services).get(path);
      if (ifMatch) checkPreconditions({ ifMatch }, etag);
      if (isNotModified(ifNoneMatch, etag)) return notModified(etag);
      return jsonResponse(200, resource, etag);
    },
  };
}

/** PUT: create (201) or replace (200), honouring If-Match and If-None-Match. */
export function putRoute<C, I, R, P, Q>(spec: ResourceSpec<C, I, R, P, Q>): RouteOperation {
  return {
    doc: {
      ...itemDoc(spec),
      summary: `Create or replace a ${spec.noun}`,
      description: `Creates the ${spec.noun} (201) or replaces it (200). If-Match makes the write conditional on the current ETag (\`*\`: it must exist); If-None-Match: \`*\` makes it a create only.`,
      conditionalHeaders: ["If-Match", "If-None-Match"],
      requestBody: writeBody(spec.putBody, spec.examples.put, JSON_ONLY),
      responses: [
        { status: 200, description: "Replaced", ...resourceDoc(spec), headers: ["ETag"] },
        { status: 201, description: "Created", ...resourceDoc(spec), headers: ["ETag"] },
      ],
      errors: [400, 409, 412, 413, 415],
      ...(spec.linked && { linkedAction: spec.linked.action }),
      ...(spec.linked?.stored && {
        linkedWhere: `the resource the body names and ${spec.linked.stored.put}`,
      }),
    },
    handler: async (request, _context, services, caller) => {
      const path = itemPathOf(spec, request);
      const preconditions = readPreconditions(request);
      const put = await bodyOf(
        request,
        spec.putBody,
        JSON_ONLY,
        (body) => spec.moreBodyProblems?.(body, services) ?? [],
      );
      const linked = spec.linked?.id(path, put);
      if (spec.linked && linked !== undefined) requireLinkedAccess(caller, spec.linked.action, linked);
      const { versioned, created } = await spec
        .service(services)
        .put(path, put, preconditions, actorOf(caller.principal), linkedAccessOf(caller));
      return jsonResponse(created ? 201 : 200, versioned.resource, versioned.etag);
    },
  };
}

/** PATCH: change some fields of an existing resource, applied to its latest version. */
export function patchRoute<C, I, R, P, Q>(
  spec: ResourceSpec<C, I, R, P, Q>,
  patchBody: z.ZodType<Q>,
): RouteOperation {
  return {
    doc: {
      ...itemDoc(spec),
      summary: `Change some fields of a ${spec.noun}`,
      description: `Applies the fields given to the latest version of an existing ${spec.noun}; If-Match makes it conditional on the current ETag.`,
      conditionalHeaders: ["If-Match"],
      requestBody: writeBody(patchBody, spec.examples.patch ?? {}, PATCH_MEDIA_TYPES),
      responses: [{ status: 200, description: "Changed", ...resourceDoc(spec), headers: ["ETag"] }],
      errors: [400, 404, 409, 412, 413, 415],
      ...(spec.linked && { linkedAction: spec.linked.action }),
    },
    handler: async (request, _context, services, caller) => {
      const service = spec.service(services);
      if (!service.patch) throw new Error(`${spec.noun}: a PATCH route without a patch operation`);
      const path = itemPathOf(spec, request);
      const preconditions = readPreconditions(request);
      const patch = await bodyOf(
        request,
        patchBody,
        PATCH_MEDIA_TYPES,
        (body) => spec.moreBodyProblems?.(body, services) ?? [],
      );
      const linked = spec.linked?.patchId?.(path, patch);
      if (spec.linked && linked !== undefined) requireLinkedAccess(caller, spec.linked.action, linked);
      const { resource, etag } = await service.patch(path, patch, preconditions, actorOf(caller.principal));
      return jsonResponse(200, resource, etag);
    },
  };
}

/** DELETE: 200 when it deleted, 204 when there was nothing to delete, 412 when If-Match fails. */
export function deleteRoute<C, I, R, P, Q>(spec: ResourceSpec<C, I, R, P, Q>): RouteOperation {
  return {
    doc: {
      ...itemDoc(spec),
      summary: `Delete a ${spec.noun}`,
      description: `200 when the ${spec.noun} was deleted, 204 when there was none; If-Match makes it conditional on the current ETag.${spec.deleteConflict ? ` 409 when ${spec.deleteConflict}.` : ""}`,
      conditionalHeaders: ["If-Match"],
      responses: [
        { status: 200, description: "Deleted" },
        { status: 204, description: "There was nothing to delete" },
      ],
      errors: spec.deleteConflict ? [400, 409, 412] : [400, 412],
      ...(spec.linked?.stored && {
        linkedAction: spec.linked.action,
        linkedWhere: spec.linked.stored.delete,
      }),
    },
    handler: async (request, _context, services, caller) => {
      const existed = await spec
        .service(services)
        .delete(itemPathOf(spec, request), readPreconditions(request), linkedAccessOf(caller));
      return existed ? deleted() : noContent();
    },
  };
}
