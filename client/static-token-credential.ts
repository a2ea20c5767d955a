import type { AccessToken, TokenCredential } from "@azure/core-auth";

/** How long a token that names no expiry is taken to last. */
const UNKNOWN_LIFETIME_MS = 60 * 60 * 1000;

/** The `exp` of a JWT, in ms since the epoch; undefined when it is not a JWT or has none. */
function jwtExpiry(token: string): number | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { exp?: unknown };
    return typeof claims.exp === "number" && Number.isFinite(claims.exp) ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A TokenCredential that always answers one access token obtained elsewhere (`az account
 * get-access-token`, the local stack's `TOKEN`, a pipeline's secret), whatever scope is asked:
 * it cannot refresh it, so calls after the token's `exp` fail with 401 InvalidAuthenticationToken.
 * Its expiry is read from the token (a JWT's `exp`, not checked: the service checks the token).
 */
export function staticTokenCredential(token: string): TokenCredential {
  if (typeof token !== "string" || token.trim() === "") {
    throw new TypeError("token must be a non-empty string (an access token, without 'Bearer ')");
  }
  const value = token.trim().replace(/^Bearer\s+/i, "");
  return {
    async getToken(): Promise<AccessToken> {
      const expiresOnTimestamp = jwtExpiry(value) ?? Date.now() + UNKNOWN_LIFETIME_MS;
      return { token: value, expiresOnTimestamp, tokenType: "Bearer" };
    },
  };
}
