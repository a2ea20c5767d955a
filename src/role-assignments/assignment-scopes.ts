import { ArmPath, AUTHENTICATION_PROFILE_PATH, RESOURCE_GROUP_PATH } from "../common/arm-path";
import { RESOURCE_GROUP_NAMES } from "../common/arm-path-schema";
import { z } from "../common/zod";
import { profileNameSchema } from "../profiles/profile-schema";
import { roleAssignmentNameSchema } from "./role-assignment-schema";

/** Where the role assignments of a scope live, below the scope's own path. */
export const ROLE_ASSIGNMENTS_SEGMENT = "providers/Microsoft.Authorization/roleAssignments";

/**
 * A resource type in a generic ARM scope: letters and digits, and never `providers`, which in an
 * ARM path starts an extension (`…/providers/Microsoft.Authorization`), not a resource.
 */
const resourceType = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/, "must be a resource type (letters and digits)")
  .refine((type) => type.toLowerCase() !== "providers", "must not be 'providers'");

/** A name in a generic ARM scope: one path segment of the characters ARM names use, never dots only ('.', '..'). */
const genericName = z
  .string()
  .regex(/^[A-Za-z0-9._()~-]{1,260}$/, "must be 1 to 260 letters, digits, '.', '_', '(', ')', '~' or '-'")
  .regex(/[^.]/, "must have a character other than '.' (not '.' or '..')");

const RESOURCE_NAMES = {
  ...RESOURCE_GROUP_NAMES,
  authenticationProfileName: profileNameSchema,
  resourceProviderNamespace: z
    .string()
    .regex(
      /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)+$/,
      "must be a resource provider namespace (Microsoft.Example)",
    )
    .refine(
      (name) => name.toLowerCase() !== "microsoft.authorization",
      "must not be Microsoft.Authorization",
    ),
  resourceType,
  resourceName: genericName,
  childResourceType: resourceType,
  childResourceName: genericName,
  roleAssignmentName: roleAssignmentNameSchema,
} as const;

export type ScopeParam = keyof typeof RESOURCE_NAMES;

const RESOURCE_PATH = RESOURCE_GROUP_PATH.action("providers")
  .param("resourceProviderNamespace")
  .param("resourceType")
  .param("resourceName");

/**
 * The scopes an assignment may be made at, each an ARM path: the root, the profiles (all or one), a
 * subscription, a resource group, a resource of any provider, and a child of one. Functions routes
 * cannot take a path of any depth, so each form is a route of its own.
 */
export const ASSIGNMENT_SCOPES = [
  { form: "root", path: ArmPath.ROOT },
  { form: "profiles", path: ArmPath.ROOT.action("authenticationProfiles") },
  { form: "profile", path: AUTHENTICATION_PROFILE_PATH },
  { form: "subscription", path: ArmPath.ROOT.child("subscriptions", "subscriptionId") },
  { form: "resourceGroup", path: RESOURCE_GROUP_PATH },
  { form: "resource", path: RESOURCE_PATH },
  { form: "childResource", path: RESOURCE_PATH.param("childResourceType").param("childResourceName") },
] as const;

export type AssignmentScopeForm = (typeof ASSIGNMENT_SCOPES)[number];

/** The item path of a scope form's assignments, and the schemas of both routes' parameters. */
export function assignmentPaths(scope: AssignmentScopeForm) {
  // Each form's parameters differ; below here they are only names to look up.
  const path = scope.path as unknown as ArmPath<string, string>;
  const item = path.child(ROLE_ASSIGNMENTS_SEGMENT, "roleAssignmentName");
  const shape = (params: readonly string[]) =>
    z.object(Object.fromEntries(params.map((param) => [param, RESOURCE_NAMES[param as ScopeParam]])));
  return {
    item,
    collection: item.collection,
    itemSchema: shape(item.params),
    collectionSchema: shape(item.collection.params),
  };
}
