import { requestSegments } from "../../auth/scope";
import { ROLE_ASSIGNMENT_API_VERSIONS } from "../../common/api-versions";
import type { ResourceService } from "../../common/resource-service";
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
import { deleteRoute, getRoute, listRoute, putRoute, resourceSpec } from "../resource-operations";
import type { RouteOperation } from "../route";

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
    list: (params, page) => roleAssignments.list({ scope: scopeOf(params) }, page),
    get: (params) => roleAssignments.get(at(params)),
    put: (params, body, preconditions, actor) => roleAssignments.put(at(params), body, preconditions, actor),
    delete: (params, preconditions) => roleAssignments.delete(at(params), preconditions),
  });
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
    list: listRoute(spec),
    get: getRoute(spec),
    put: putRoute(spec),
    delete: deleteRoute(spec),
  } satisfies Record<string, RouteOperation>;
}

type Form = AssignmentScopeForm["form"];

/** The operations of the roleAssignments rows of the route table, by scope form. */
export const roleAssignmentOperations = Object.fromEntries(
  ASSIGNMENT_SCOPES.map((scope) => [scope.form, operationsAt(scope)]),
) as Record<Form, ReturnType<typeof operationsAt>>;
