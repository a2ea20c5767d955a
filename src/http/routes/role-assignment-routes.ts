import type { HttpRequest } from "@azure/functions";
import { requestSegments } from "../../auth/scope";
import { ROLE_ASSIGNMENT_API_VERSIONS } from "../../common/api-versions";
import { InvalidFilter, InvalidRequestContent } from "../../common/errors";
import type { ResourceService } from "../../common/resource-service";
import {
  ASSIGNMENT_FILTER_PATTERN,
  type AssignmentFilter,
  filterIdentity,
  MAX_FILTER_LENGTH,
  NO_FILTER,
  parseAssignmentFilter,
} from "../../role-assignments/assignment-filter";
import {
  ASSIGNMENT_SCOPES,
  type AssignmentScopeForm,
  assignmentPaths,
} from "../../role-assignments/assignment-scopes";
import {
  type RoleAssignment,
  type RoleAssignmentPut,
  roleAssignmentPutSchema,
  roleAssignmentSchema,
} from "../../role-assignments/role-assignment-schema";
import type { Services } from "../../services";
import { checkApiVersion } from "../api-version";
import { listBody, listIdentity, PAGING_OPTIONS, readPageRequest } from "../paging";
import { queryValue, refuseUntakenOptions } from "../query";
import { deleteRoute, getRoute, listRoute, putRoute, resourceSpec } from "../resource-operations";
import { jsonResponse } from "../responses";
import type { QueryParameterDoc, RouteOperation } from "../route";
import { parseOrThrow } from "../validation";

type Params = Record<string, string>;
type Assignments = ResourceService<Params, Params, RoleAssignment, RoleAssignmentPut, never>;

const EXAMPLE: RoleAssignment = {
  id: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/twins-rg/providers/Microsoft.Authorization/roleAssignments/3f2504e0-4f89-41d3-9a0c-0305e82c3301",
  name: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
  type: "Microsoft.Authorization/roleAssignments",
  scope: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/twins-rg",
  principalId: "6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f",
  principalType: "User",
  roleDefinitionId: "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
  roleDefinitionName: "Reader",
  systemData: {
    createdAt: "2026-11-20T09:30:00.000Z",
    createdBy: "2f1c9a4e-7b3d-4c2a-9e8f-5d6a7b8c9d0e",
    createdByType: "User",
    lastModifiedAt: "2026-11-20T09:30:00.000Z",
    lastModifiedBy: "2f1c9a4e-7b3d-4c2a-9e8f-5d6a7b8c9d0e",
    lastModifiedByType: "User",
  },
};

/** The assignment service seen through one scope form: the route's parameters name the scope. */
function scopedAssignments(scope: AssignmentScopeForm): (services: Services) => Assignments {
  const scopeOf = (params: Params) => requestSegments(scope.path.route, params);
  const at = (params: Params) => ({
    scope: scopeOf(params),
    roleAssignmentName: params.roleAssignmentName ?? "",
  });
  return ({ roleAssignments }) => ({
    // Unfiltered; the list route (filteredListRoute) calls the service with the request's $filter.
    list: (params, page) => roleAssignments.list({ scope: scopeOf(params) }, page),
    get: (params) => roleAssignments.get(at(params)),
    put: (params, body, preconditions, actor) => roleAssignments.put(at(params), body, preconditions, actor),
    delete: (params, preconditions) => roleAssignments.delete(at(params), preconditions),
  });
}

const FILTER_PARAMETER: QueryParameterDoc = {
  name: "$filter",
  description:
    "Which assignments, as ARM's Microsoft.Authorization reads it; absent, those at the scope and above it. " +
    "`atScope()`: the same, at and above (none below). " +
    "`principalId eq '{objectId}'`: the principal's, at, above and below the scope. " +
    "`assignedTo('{objectId}')`: the same (this service reads no group membership, and an assignment to a group grants nothing here, so no group's assignments are added). " +
    "`atScope() and assignedTo('{objectId}')` (either order): the principal's, at and above. " +
    "Keywords in any letter case; the object id a GUID in single quotes, in any letter case; blanks (spaces, tabs) may stand around the parentheses and the id, and must stand around `eq` and `and`. " +
    "Anything else (another field or function, `or`, `not`, parentheses, `atScope()` with `principalId eq`, which ARM refuses too, an unquoted or malformed id, an empty filter, two different values) is 400 InvalidFilter, naming what is wrong and where; never ignored. " +
    "nextLink keeps the filter, and its $skipToken belongs to this filter.",
  schema: { type: "string", minLength: 1, maxLength: MAX_FILTER_LENGTH, pattern: ASSIGNMENT_FILTER_PATTERN },
  examples: {
    principal: {
      summary: "One principal's assignments, at, above and below the scope",
      value: "principalId eq '6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f'",
    },
    atScope: { summary: "At and above the scope", value: "atScope()" },
    assignedAtScope: {
      summary: "One principal's, at and above the scope",
      value: "atScope() and assignedTo('6d1f0f8e-2b7a-4c3e-9f10-3a4b5c6d7e8f')",
    },
  },
};

/** The query options a role-assignment list takes. */
const LIST_OPTIONS = [...PAGING_OPTIONS, "$filter"];

/** The request's $filter, read (InvalidFilter also for two different values); NO_FILTER when absent. */
function readFilter(request: HttpRequest): AssignmentFilter {
  const text = queryValue(request, "$filter", (message, target) => new InvalidFilter(message, target));
  return text === null ? NO_FILTER : parseAssignmentFilter(text);
}

/**
 * ARM's role-assignment operations take `tenantId` (a cross-tenant request); this service has no
 * such requests, and ignoring it would answer another question than the one asked.
 */
function refuseTenantId(request: HttpRequest): void {
  if (queryValue(request, "tenantId") !== null)
    throw new InvalidRequestContent(
      "tenantId (a cross-tenant request) is not supported: the service lists the assignments it holds, of every tenant.",
      "tenantId",
    );
}

/**
 * GET of a scope's assignments: listRoute's, with ARM's `$filter` (assignment-filter.ts). A page's
 * skip token is bound to the filter as well as to the scope, so that a token of one filter is
 * refused by another (its continuation would skip or repeat assignments there).
 */
function filteredListRoute(
  base: RouteOperation,
  scope: AssignmentScopeForm,
  paths: ReturnType<typeof assignmentPaths>,
): RouteOperation {
  const scopeOf = (params: Params) => requestSegments(scope.path.route, params);
  return {
    doc: {
      ...base.doc,
      description: `${base.doc.description} $filter selects one principal's assignments, or those at and above the scope (ARM's forms; any other is 400 InvalidFilter).`,
      queryParameters: [FILTER_PARAMETER],
    },
    handler: async (request, _context, services) => {
      checkApiVersion(request, ROLE_ASSIGNMENT_API_VERSIONS);
      refuseUntakenOptions(request, LIST_OPTIONS);
      refuseTenantId(request);
      const params = parseOrThrow(paths.collectionSchema, request.params) as Params;
      const filter = readFilter(request);
      const bound = filterIdentity(filter);
      const list = listIdentity(
        paths.collection.route,
        bound === undefined ? request.params : { ...request.params, $filter: bound },
      );
      const page = await services.roleAssignments.list(
        { scope: scopeOf(params) },
        readPageRequest(request, list),
        undefined,
        filter,
      );
      return jsonResponse(200, listBody(request, page, services.config, list));
    },
  };
}

/** getRoute's, refusing tenantId as the list does. */
function withoutTenantId(base: RouteOperation): RouteOperation {
  return {
    doc: base.doc,
    handler: (request, context, services, caller) => {
      refuseTenantId(request);
      return base.handler(request, context, services, caller);
    },
  };
}

function operationsAt(scope: AssignmentScopeForm) {
  const paths = assignmentPaths(scope);
  const spec = resourceSpec({
    noun: "role assignment",
    tag: "RoleAssignment",
    collectionRoute: paths.collection.route,
    apiVersions: ROLE_ASSIGNMENT_API_VERSIONS,
    collectionPath: paths.collectionSchema,
    itemPath: paths.itemSchema,
    putBody: roleAssignmentPutSchema,
    resourceSchema: roleAssignmentSchema,
    examples: {
      put: { principalId: EXAMPLE.principalId, roleDefinitionName: "Reader", principalType: "User" },
      resource: EXAMPLE,
    },
    service: scopedAssignments(scope),
  });
  return {
    list: filteredListRoute(listRoute(spec), scope, paths),
    get: withoutTenantId(getRoute(spec)),
    put: putRoute(spec),
    delete: deleteRoute(spec),
  } satisfies Record<string, RouteOperation>;
}

type Form = AssignmentScopeForm["form"];

/** The operations of the roleAssignments rows of the route table, by scope form. */
export const roleAssignmentOperations = Object.fromEntries(
  ASSIGNMENT_SCOPES.map((scope) => [scope.form, operationsAt(scope)]),
) as Record<Form, ReturnType<typeof operationsAt>>;
