import type { Page, PageRequest } from "./page";
import type { Preconditions } from "./preconditions";
import type { Actor } from "./system-data";
import type { Versioned } from "./versioned";

/**
 * What the caller's roles allow on resources other than the one a request acts on, for a write
 * whose check depends on what is stored when it is written (moving or deleting an event route
 * changes what the endpoint it named receives). src/http/caller.ts makes it from the caller's
 * grants; a service passes it no judgement of its own, only the resources and actions to ask about.
 * Absent for a key caller, whom the key admits to whatever the route does.
 */
export interface LinkedAccess {
  /** Whether the caller holds `action` on the resource whose ARM id is `id` (compared as a typed id). */
  permits(action: string, id: string): boolean;
  /** Throws 403 AuthorizationFailed naming `id` unless the caller holds `action` on it. */
  require(action: string, id: string): void;
}

/**
 * `actor` is who writes, for systemData; a service never decides who may (src/http/caller.ts does):
 * `access`, where a write takes it, is what the caller may do elsewhere, asked on what is stored.
 *
 * What a declarative resource's service offers, in domain terms (paths, bodies, preconditions):
 * http/ turns requests into these calls, and every resource answers HTTP the same way.
 */
export interface ResourceService<CollectionPath, ItemPath, Resource, Put, Patch> {
  /** One page; with `only`, of the items of those names alone (what a caller may read of the list). */
  list(path: CollectionPath, page: PageRequest, only?: readonly string[]): Promise<Page<Resource>>;
  get(path: ItemPath): Promise<Versioned<Resource>>;
  put(
    path: ItemPath,
    body: Put,
    preconditions: Preconditions,
    actor: Actor,
    access?: LinkedAccess,
  ): Promise<{ versioned: Versioned<Resource>; created: boolean }>;
  /** Absent for resources that are only ever replaced whole. */
  patch?(
    path: ItemPath,
    body: Patch,
    preconditions: Preconditions,
    actor: Actor,
  ): Promise<Versioned<Resource>>;
  delete(path: ItemPath, preconditions: Preconditions, access?: LinkedAccess): Promise<boolean>;
}
