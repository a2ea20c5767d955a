import { createHash } from "node:crypto";
import type { EntraPrincipal } from "./principal";

/**
 * Tokens this host has validated, by the SHA-256 of the whole token, with the principal each names,
 * so a client that sends its token with every request pays for jose's signature check once, not
 * per request (about 75 µs of CPU each, a tenth of a GET). An entry is kept until the token expires
 * (with the validator's clock tolerance) but no longer than `maxAgeMs`, the age the key set is kept
 * for, so a key the authority withdraws stops working here as soon as it would without this cache.
 * Access tokens cannot be revoked (Entra ID has no revocation list for them), so a token that
 * passed once passes until then either way. Bounded: the oldest entries go first.
 */
export class AcceptedTokens {
  private readonly entries = new Map<string, { principal: EntraPrincipal; until: number }>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxEntries: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The principal of a token accepted before and not yet expired; undefined otherwise. */
  get(token: string): EntraPrincipal | undefined {
    const key = digest(token);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > Date.now()) return entry.principal;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps a token that was just validated; `expiresAtMs` is its `exp` plus the clock tolerance. */
  add(token: string, principal: EntraPrincipal, expiresAtMs: number): void {
    if (this.maxEntries <= 0) return;
    const until = Math.min(expiresAtMs, Date.now() + this.maxAgeMs);
    const key = digest(token);
    this.entries.delete(key);
    this.entries.set(key, { principal: Object.freeze({ ...principal }), until });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}

function digest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
