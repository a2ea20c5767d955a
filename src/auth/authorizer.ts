import { rolePermits } from "./action-match";
import { ARM_ROOT, type ArmId, covers, parseArmId } from "./arm-id";
import type { EntraPrincipal } from "./principal";
import { OWNER, type RoleDefinition, roleById } from "./role-definitions";

/** One assignment as the authorizer sees it: its scope as stored (an ARM id), and its role. */
export interface GrantRecord {
  scope: string;
  roleDefinition: string;
  tenantId?: string;
}

interface Grant {
  scope: ArmId;
  role: RoleDefinition;
}

/** What a principal holds, resolved: whether it may do an action on a typed id, or on some items of a list. */
export class Grants {
  constructor(private readonly grants: readonly Grant[]) {}

  permits(action: string, target: ArmId): boolean {
    return this.grants.some((grant) => covers(grant.scope, target) && rolePermits(grant.role, action));
  }

  /**
   * The names of the items of a list (`item(name)` is the id of the one named so) that a grant made
   * at that very item allows the action on: what a caller with no role at the list's scope may see.
   */
  itemsPermitted(action: string, item: (name: string) => ArmId): string[] {
    const names = new Set<string>();
    for (const grant of this.grants) {
      const name = grant.scope.levels.at(-1)?.name;
      if (name !== undefined && rolePermits(grant.role, action) && covers(grant.scope, item(name)))
        names.add(name);
    }
    return [...names];
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

  /**
   * The principal's grants, from this host's cache while it holds them; `fresh`: read from the store
   * whatever the cache holds (and kept), as changes to access are judged.
   */
  grantsOf(principal: EntraPrincipal, { fresh = false }: { fresh?: boolean } = {}): Promise<Grants> {
    const key = `${principal.tenantId}/${principal.objectId}`;
    const now = Date.now();
    const cached = this.cache.get(key);
    if (!fresh && cached && cached.until > now) return cached.grants;
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
      grants.push({ scope: ARM_ROOT, role: OWNER });
    for (const record of await this.options.load(principal.objectId)) {
      const role = roleById(record.roleDefinition);
      // A scope no route could have made (stored by an older version) grants nothing.
      const scope = parseArmId(record.scope);
      // An assignment made in another tenant is not this principal's.
      if (role && scope && (record.tenantId === undefined || record.tenantId === principal.tenantId))
        grants.push({ scope, role });
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
