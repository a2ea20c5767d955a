import type { Page, PageRequest } from "./page";
import type { Preconditions } from "./preconditions";
import type { Actor } from "./system-data";
import type { Versioned } from "./versioned";

/**
 * `actor` is who writes, for systemData; a service never decides who may (src/http/caller.ts does).
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
  ): Promise<{ versioned: Versioned<Resource>; created: boolean }>;
  /** Absent for resources that are only ever replaced whole. */
  patch?(
    path: ItemPath,
    body: Patch,
    preconditions: Preconditions,
    actor: Actor,
  ): Promise<Versioned<Resource>>;
  delete(path: ItemPath, preconditions: Preconditions): Promise<boolean>;
}
