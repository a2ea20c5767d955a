import { rolePermits } from "./action-match";
import type { EntraPrincipal } from "./principal";
import { OWNER, type RoleDefinition, roleById } from "./role-definitions";
import { covers, type ScopeKey } from "./scope";

/** One assignment as the authorizer sees it. */
export interface GrantRecord {
  scopeKey: readonly string[];
  roleDefinition: string;
  tenantId?: string;
}

interface Grant {
  scope: ScopeKey;
  role: RoleDefinition;
}

/** What a principal holds, resolved: whether it may do an action at a scope, or somewhere below it. */
export class Grants {
  constructor(private readonly grants: readonly Grant[]) {}

  permits(action: string, scope: ScopeKey): boolean {
    return this.grants.some((grant) => covers(grant.scope, scope) && rolePermits(grant.role, action));
  }

  /** Whether some grant strictly below `scope` allows the action (a list may then show part). */
  permitsBelow(action: string, scope: ScopeKey): boolean {
    return this.grants.some(
      (grant) =>
        grant.scope.length > scope.length && covers(scope, grant.scope) && rolePermits(grant.role, action),
    );
  }
}

export interface AuthorizerOptions {
  /** A principal's assignments, from the store. */
  load: (objectId: string) => Promise<GrantRecord[]>;
  /** Principals (an object id in a tenant) that hold Owner at `/` without an assignment. */
  admins: readonly { tenantId: string; objectId: string }[];
  /** How long a principal's grants are kept; a revoked assignment stops working within it. */
  cacheMs: number;
  /** How many principals' grants are kept at most (the oldest go first). */
  maxEntries?: number;
}

/**
 * Decides, with one read of a principal's assignments per cache period, what the principal may do.
 * Concurrent first requests of one principal share the read; a failed read is not kept.
 */
export class Authorizer {
  private readonly cache = new Map<string, { until: number; grants: Promise<Grants> }>();
  private readonly admins: Set<string>;

  constructor(private readonly options: AuthorizerOptions) {
    // `{tenant}/{object id}`, lower-cased: the same object id in another tenant is someone else.
    this.admins = new Set(options.admins.map((admin) => `${admin.tenantId}/${admin.objectId}`.toLowerCase()));
  }

  grantsOf(principal: EntraPrincipal): Promise<Grants> {
    const key = `${principal.tenantId}/${principal.objectId}`;
    const now = Date.now();
    const cached = this.cache.get(key);
    if (cached && cached.until > now) return cached.grants;
    const grants = this.load(principal);
    this.cache.delete(key);
    if (this.options.cacheMs > 0) {
      this.cache.set(key, { until: now + this.options.cacheMs, grants });
      // Only this read's own entry: a newer read (after expiry or forget) may hold the key by now.
      grants.catch(() => {
        if (this.cache.get(key)?.grants === grants) this.cache.delete(key);
      });
      this.trim();
    }
    return grants;
  }

  /** Forgets a principal's grants (its assignments changed on this host). */
  forget(objectId: string): void {
    const suffix = `/${objectId.toLowerCase()}`;
    for (const key of this.cache.keys()) if (key.endsWith(suffix)) this.cache.delete(key);
  }

  private async load(principal: EntraPrincipal): Promise<Grants> {
    const grants: Grant[] = [];
    if (this.admins.has(`${principal.tenantId}/${principal.objectId}`.toLowerCase()))
      grants.push({ scope: [], role: OWNER });
    for (const record of await this.options.load(principal.objectId)) {
      const role = roleById(record.roleDefinition);
      // An assignment made in another tenant is not this principal's.
      if (role && (record.tenantId === undefined || record.tenantId === principal.tenantId))
        grants.push({ scope: record.scopeKey, role });
    }
    return new Grants(grants);
  }

  private trim(): void {
    const max = this.options.maxEntries ?? 10_000;
    for (const key of this.cache.keys()) {
      if (this.cache.size <= max) return;
      this.cache.delete(key);
    }
  }
}
