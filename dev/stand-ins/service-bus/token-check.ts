import { createRemoteJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from "jose";
import { MANAGED_IDENTITY_ISSUER } from "../managed-identity/identities";

/** What Entra ID tokens for Service Bus carry as audience (the resource, with or without its slash). */
export const SERVICE_BUS_AUDIENCES = ["https://servicebus.azure.net", "https://servicebus.azure.net/"];

export interface TokenSettings {
  /** The key set the managed-identity stand-in publishes (`/msi/keys`). */
  jwksUri: string;
  /** Principal ids (`oid`) holding "Azure Service Bus Data Sender" on the whole namespace. */
  senders: readonly string[];
}

export type TokenVerdict = { ok: true; principalId: string } | { ok: false; reason: string };

/**
 * Checks a JWT the way Service Bus checks an Entra ID token on `$cbs`: signed RS256 by a key of the
 * key set (never `alg: none`), issued by the local tenant's v1 issuer, for Service Bus, and within
 * its lifetime (no clock skew allowed: tests forge tokens seconds out of it).
 */
export function tokenChecker(settings: TokenSettings): (token: string) => Promise<TokenVerdict> {
  const keys: JWTVerifyGetKey = createRemoteJWKSet(new URL(settings.jwksUri), { timeoutDuration: 5000 });
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keys, {
        algorithms: ["RS256"],
        issuer: MANAGED_IDENTITY_ISSUER,
        audience: SERVICE_BUS_AUDIENCES,
        requiredClaims: ["exp", "oid"],
      });
      if (typeof payload.oid !== "string") return { ok: false, reason: "the token has no oid claim" };
      return { ok: true, principalId: payload.oid.toLowerCase() };
    } catch (error) {
      return { ok: false, reason: describe(error) };
    }
  };
}

/** Why a token was refused, in words a developer can act on (never the token itself). */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "the token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return `the token's audience is not ${SERVICE_BUS_AUDIENCES[0]}`;
    if (error.claim === "iss") return `the token's issuer is not ${MANAGED_IDENTITY_ISSUER}`;
    if (error.claim === "nbf") return "the token is not valid yet";
    return `the token's ${error.claim} claim is not acceptable`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token is not signed with RS256";
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return "the token is not signed by a key of the local managed identity endpoint";
  }
  if (error instanceof errors.JOSEError) return `the token is not valid (${error.code})`;
  return `the token could not be checked (${(error as Error).message})`;
}
