import type { FetchImplementation, JWTVerifyGetKey } from "jose";
import { AuthorityUnavailable } from "./openid-metadata";

type Jose = typeof import("jose");

export interface AuthorityKeysOptions {
  /** Least time between two fetches of the key set, counted from the start of the last one, whatever its outcome. */
  cooldownMs: number;
  /** How long a key set that was read is used before it is read again (jose's cacheMaxAge). */
  maxAgeMs: number;
  /** How long one fetch may take. */
  timeoutMs: number;
}

/** No fetch was made: the last one started less than a cool-down ago. */
class CoolingDown extends Error {
  constructor(readonly retryAfterMs: number) {
    super("the key set was fetched less than a cool-down ago");
    this.name = "CoolingDown";
  }
}

/**
 * The authority's published key set, read with jose's remote key set, every fetch of which (the
 * first read, a read of a stale set, a read for an unknown `kid`) goes through one gate: at most one
 * fetch per cool-down, whether the last one succeeded or failed. jose alone counts its cool-down
 * from the last success only, so an authority answering errors would be asked again for every
 * token with an unknown `kid`. Concurrent requests share one fetch (jose's).
 *
 * Within the cool-down after a failed fetch, a token whose `kid` the kept set has still passes (jose
 * keeps the set it read last, for `maxAgeMs`), and one it lacks is answered 503 AuthorityUnavailable
 * with Retry-After the rest of the cool-down: the authority is at fault, not the token. No key with
 * that `kid` in a key set that was read is the token's fault (jose's JWKSNoMatchingKey, a 401).
 */
export function authorityKeySet(jose: Jose, jwksUri: URL, options: AuthorityKeysOptions): JWTVerifyGetKey {
  let lastAttempt = Number.NEGATIVE_INFINITY;
  const gate: FetchImplementation = async (url, init) => {
    const now = Date.now();
    const until = lastAttempt + options.cooldownMs;
    if (now < until) throw new CoolingDown(until - now);
    lastAttempt = now;
    return fetch(url, init);
  };
  const remote = jose.createRemoteJWKSet(jwksUri, {
    timeoutDuration: options.timeoutMs,
    cooldownDuration: options.cooldownMs,
    cacheMaxAge: options.maxAgeMs,
    [jose.customFetch]: gate,
  });
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (
        error instanceof jose.errors.JWKSNoMatchingKey ||
        error instanceof jose.errors.JWKSMultipleMatchingKeys
      )
        throw error;
      if (error instanceof CoolingDown) {
        // Still within jose's cool-down, the last fetch succeeded: that set lacks the key.
        if (remote.coolingDown) throw new jose.errors.JWKSNoMatchingKey();
        throw new AuthorityUnavailable(
          "its key set could not be read at the last try, and is tried again after a cool-down",
          Math.max(1, Math.ceil(error.retryAfterMs / 1000)),
        );
      }
      const rest = lastAttempt + options.cooldownMs - Date.now();
      throw new AuthorityUnavailable(
        `its key set could not be read: ${(error as Error).name}`,
        Math.max(1, Math.ceil(rest / 1000)),
      );
    }
  };
}
