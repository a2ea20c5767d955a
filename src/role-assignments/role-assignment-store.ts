import type { Container } from "@azure/cosmos";
import type { SystemData } from "../common/system-data";
import { DocumentStore } from "../store/document-store";

/**
 * The stored form, one per assignment, partitioned by its own id (the name's key): names are unique
 * however many scopes there are, and a create is atomic on it. `scopeKey` is the scope as name keys;
 * `scopeKeyPath` the same joined, for lookups of a scope and the scopes above it.
 */
export interface RoleAssignmentDocument {
  id: string;
  name: string;
  scope: string;
  scopeKey: string[];
  scopeKeyPath: string;
  principalId: string;
  principalType: string;
  /** The role definition's GUID. */
  roleDefinition: string;
  /** The tenant of the caller who assigned it: tokens of another tenant with the same oid do not match. */
  tenantId?: string;
  systemData: SystemData;
}

/** What the authorizer needs of one assignment. */
export interface Grant {
  scope: string;
  roleDefinition: string;
  tenantId?: string;
}

export function roleAssignmentStore(container: Container): DocumentStore<RoleAssignmentDocument> {
  return new DocumentStore<RoleAssignmentDocument>(container, (document) => document.id);
}

/** Every assignment of a principal (for any tenant; the authorizer compares tenants). */
export function grantsOf(
  store: DocumentStore<RoleAssignmentDocument>,
  principalId: string,
): Promise<Grant[]> {
  return store.queryAll<Grant>({
    query: "SELECT c.scope, c.roleDefinition, c.tenantId FROM c WHERE c.principalId = @principal",
    parameters: [{ name: "@principal", value: principalId }],
  });
}
