import type { BuiltInRoleName } from "./types";

/**
 * The role definition GUID of each built-in role (Owner, Contributor, Reader and Managed Identity
 * Operator carry Azure's).
 */
export const BUILT_IN_ROLE_IDS: Readonly<Record<BuiltInRoleName, string>> = {
  Owner: "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
  Contributor: "b24988ac-6180-42a0-ab88-20f7382dd24c",
  Reader: "acdd72a7-3385-48ef-bd42-f606fba81ae7",
  "Managed Identity Operator": "f1a07417-d97a-45cb-824c-7a7467783830",
  "Twin Events Sender": "5b0c3a1e-9d2f-4c6b-8e7a-1f2d3c4b5a69",
  "Assessment Writer": "7c1e2d3f-4a5b-4c6d-9e8f-0a1b2c3d4e5f",
};

/** `/providers/Microsoft.Authorization/roleDefinitions/{guid}`, at a subscription or not. */
const ROLE_DEFINITION_ID =
  /^(?:\/subscriptions\/[^/]+)?\/providers\/Microsoft\.Authorization\/roleDefinitions\/([^/]+)$/i;

/**
 * The GUID a role is known by, however it is written, as the service reads it: a built-in role's
 * name (any case), its ARM id, or the GUID alone. Text that names no role comes back lower-cased,
 * so two spellings of the same unknown role still compare equal.
 */
export function roleDefinitionGuid(role: { roleDefinitionId?: string; roleDefinitionName?: string }): string {
  if (role.roleDefinitionId !== undefined) {
    return (ROLE_DEFINITION_ID.exec(role.roleDefinitionId)?.[1] ?? role.roleDefinitionId).toLowerCase();
  }
  const name = (role.roleDefinitionName ?? "").toLowerCase();
  const builtIn = Object.entries(BUILT_IN_ROLE_IDS).find(([roleName]) => roleName.toLowerCase() === name);
  return builtIn ? builtIn[1] : name;
}
