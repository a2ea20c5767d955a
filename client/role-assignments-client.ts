import type { CallOptions, ListOptions, MatchOptions, PageOptions, WriteOptions } from "./client-options";
import type { PagedAsyncIterable } from "./paged-list";
import type { ResourceCalls } from "./resource-calls";
import { roleAssignmentPath } from "./resource-paths";
import type { Page, PutResult, RoleAssignment, RoleAssignmentInput, WithEtag } from "./types";

/**
 * Role assignments, `{scope}/providers/Microsoft.Authorization/roleAssignments/{name}`: a role
 * held by a principal at a scope and everywhere below it. A scope is `/` (everything),
 * `/authenticationProfiles[/{name}]`, or an ARM resource id: `/subscriptions/{id}`, a resource
 * group, a resource (a twins instance, an assessment project, …) or one child of a resource.
 * Names are GUIDs (`crypto.randomUUID()`). An assignment is never changed, only created and deleted.
 * Reading them needs `Microsoft.Authorization/roleAssignments/read` at the scope (Reader does);
 * writing and deleting need Owner (Contributor may not). Under AUTH_MODE=keys: the master key.
 */
export class RoleAssignmentsClient {
  constructor(private readonly calls: ResourceCalls<RoleAssignment>) {}

  /**
   * Creates the assignment (`created`: true), or finds it as it is (the same principal and role
   * under that name: false). A ServiceError 409 `RoleAssignmentUpdateNotPermitted` when the name
   * holds another principal or role, 409 `RoleAssignmentExists` when the principal already has the
   * role at the scope under another name.
   */
  async create(
    scope: string,
    name: string,
    input: RoleAssignmentInput,
    options?: WriteOptions,
  ): Promise<PutResult<RoleAssignment>> {
    return this.calls.put(roleAssignmentPath(scope, name), input, options);
  }

  async get(scope: string, name: string, options?: CallOptions): Promise<WithEtag<RoleAssignment>> {
    return this.calls.get(roleAssignmentPath(scope, name), options);
  }

  /** True when an assignment was deleted, false when there was none. */
  async delete(scope: string, name: string, options?: MatchOptions): Promise<boolean> {
    return this.calls.delete(roleAssignmentPath(scope, name), options);
  }

  /** The assignments at the scope and at every scope above it (those that hold there). */
  list(scope: string, options?: ListOptions): PagedAsyncIterable<RoleAssignment> {
    return this.calls.list(() => roleAssignmentPath(scope), options);
  }

  async listPage(scope: string, options?: PageOptions): Promise<Page<RoleAssignment>> {
    return this.calls.listPage(roleAssignmentPath(scope), options);
  }
}
