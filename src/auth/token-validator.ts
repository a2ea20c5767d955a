import type { JWTVerifyGetKey } from "jose";
import { AuthenticationFailed } from "../common/errors";
import { AcceptedTokens } from "./accepted-tokens";
import { authorityKeySet } from "./authority-keys";
import { AuthorityUnavailable, OpenIdDiscovery } from "./openid-metadata";
import type { EntraPrincipal } from "./principal";
import {
  acceptedAudiences,
  acceptedIssuers,
  type EntraClaims,
  isGuid,
  issuerTenant,
  principalOf,
} from "./token-claims";
import { describeTokenFailure } from "./token-failures";

export interface TokenSettings {
  authority: string;
  audiences: readonly string[];
  /** Absent: the tenant the authority's issuer names. */
  allowedTenants?: readonly string[];
  /** How many validated tokens are kept (default 10,000; 0 validates every request in full). */
  acceptedTokens?: number;
  /**
   * Least time between two fetches of the authority's key set, whether the last one succeeded or
   * failed (default 30,000 ms): an unknown `kid` costs at most one fetch per cool-down.
   */
  keySetCooldownMs?: number;
}

/** Asymmetric algorithms only: a symmetric one would let anyone holding the public key sign. */
export const ACCEPTED_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
];
const CLOCK_TOLERANCE_SECONDS = 60;
/** Longer than any Entra ID token: anything bigger is not one, and is refused unparsed. */
const MAX_TOKEN_LENGTH = 16 * 1024;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** How long the authority's key set is kept (jose's cacheMaxAge), and so a validated token at most. */
const KEY_SET_MAX_AGE_MS = 10 * 60_000;
/** Least time between two fetches of the key set, whatever the last one's outcome. */
const KEY_SET_COOLDOWN_MS = 30_000;

type Jose = typeof import("jose");

/** jose is loaded with the first token, not with the entry points (an HTTP cold start under keys never needs it). */
function loadJose(): Jose {
  return require("jose") as Jose;
}

/**
 * Validates Entra ID access tokens (v1 and v2) with jose: the signature against the authority's
 * published key set only (never a key or URL the token itself names), the algorithm, issuer,
 * audience, lifetime and tenant. What can be refused without the keys is refused first, so a forged
 * token of most kinds costs no request to the authority; an unknown `kid` refreshes the key set at
 * most once per cool-down, whether the last fetch succeeded or failed (authority-keys.ts).
 */
export class TokenValidator {
  private readonly authority: URL;
  private readonly discovery: OpenIdDiscovery;
  private readonly audiences: string[];
  private keys: { uri: string; resolve: JWTVerifyGetKey } | undefined;
  /** Tokens validated before: the settings they were judged by never change for this validator. */
  private readonly accepted: AcceptedTokens;

  constructor(private readonly settings: TokenSettings) {
    this.authority = new URL(settings.authority);
    this.discovery = new OpenIdDiscovery(this.authority);
    this.audiences = acceptedAudiences(settings.audiences);
    this.accepted = new AcceptedTokens(KEY_SET_MAX_AGE_MS, settings.acceptedTokens ?? 10_000);
  }

  /** How many validated tokens are kept now. */
  get acceptedTokenCount(): number {
    return this.accepted.size;
  }

  /** What a 401 answers in WWW-Authenticate when no token came. */
  challenge(): string {
    return `Bearer authorization_uri="${this.authority.href}", resource_id="${this.settings.audiences[0] ?? ""}"`;
  }

  /** The principal of an `Authorization` header's bearer token; 401 or 503 otherwise. */
  async principalOf(authorization: string | null): Promise<EntraPrincipal> {
    const token = this.bearerToken(authorization);
    const known = this.accepted.get(token);
    if (known !== undefined) return known;
    const jose = loadJose();
    const claims = this.precheck(jose, token);
    const metadata = await this.discovery.get();
    const tenant = String(claims.tid).toLowerCase();
    if (!this.tenantAllowed(tenant, metadata.issuer))
      throw this.invalid("The token's tenant is not allowed.");
    const issuers = acceptedIssuers(metadata.issuer, this.authority, tenant);
    if (typeof claims.iss !== "string" || !issuers.includes(claims.iss))
      throw this.invalid("The token's issuer is not the configured authority.");
    try {
      const { payload } = await jose.jwtVerify(token, this.keySet(jose, metadata.jwksUri), {
        algorithms: ACCEPTED_ALGORITHMS,
        issuer: issuers,
        audience: this.audiences,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ["exp", "tid", "oid"],
      });
      const principal = principalOf(payload as EntraClaims);
      this.accepted.add(token, principal, ((payload.exp as number) + CLOCK_TOLERANCE_SECONDS) * 1000);
      return principal;
    } catch (error) {
      if (error instanceof AuthorityUnavailable) throw error;
      throw this.invalid(describeTokenFailure(jose, error));
    }
  }

  private bearerToken(authorization: string | null): string {
    if (authorization === null || authorization.trim() === "") {
      throw new AuthenticationFailed(
        "Authentication failed. The 'Authorization' header is missing: send 'Authorization: Bearer <token>'.",
        "AuthenticationFailed",
        this.challenge(),
      );
    }
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match) throw this.invalid("The 'Authorization' header must be 'Bearer <token>'.");
    const token = match[1] as string;
    if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token))
      throw this.invalid("The token is not a signed JWT in compact form.");
    return token;
  }

  /** What can be judged from the token alone (algorithm, key id, claims' shape, lifetime, audience). */
  private precheck(jose: Jose, token: string): EntraClaims {
    let header: ReturnType<Jose["decodeProtectedHeader"]>;
    let claims: EntraClaims;
    try {
      header = jose.decodeProtectedHeader(token);
      claims = jose.decodeJwt(token) as EntraClaims;
    } catch {
      throw this.invalid("The token is not a well-formed JWT.");
    }
    if (typeof header.alg !== "string" || !ACCEPTED_ALGORITHMS.includes(header.alg))
      throw this.invalid("The token's signing algorithm is not accepted (asymmetric algorithms only).");
    if (typeof header.kid !== "string" || header.kid === "")
      throw this.invalid("The token names no signing key (kid).");
    if (!isGuid(claims.tid) || !isGuid(claims.oid))
      throw this.invalid("The token has no tenant (tid) or object id (oid).");
    const now = Date.now() / 1000;
    if (typeof claims.exp !== "number" || claims.exp + CLOCK_TOLERANCE_SECONDS < now)
      throw this.invalid(expiredMessage(claims.exp));
    if (typeof claims.nbf === "number" && claims.nbf - CLOCK_TOLERANCE_SECONDS > now)
      throw this.invalid("The token is not valid yet (nbf is in the future).");
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.some((audience) => typeof audience === "string" && this.audiences.includes(audience)))
      throw this.invalid("The token was issued for another audience.");
    return claims;
  }

  private tenantAllowed(tenant: string, discoveryIssuer: string): boolean {
    const allowed = this.settings.allowedTenants ?? [issuerTenant(discoveryIssuer)];
    return allowed.includes(tenant);
  }

  /**
   * The authority's key set, made once per jwks_uri: kept, and refreshed on an unknown kid at most
   * once per cool-down. No key with that kid is the token's fault; anything else is the authority's.
   */
  private keySet(jose: Jose, jwksUri: URL): JWTVerifyGetKey {
    if (this.keys?.uri !== jwksUri.href) {
      const resolve = authorityKeySet(jose, jwksUri, {
        cooldownMs: this.settings.keySetCooldownMs ?? KEY_SET_COOLDOWN_MS,
        maxAgeMs: KEY_SET_MAX_AGE_MS,
        timeoutMs: 5000,
      });
      this.keys = { uri: jwksUri.href, resolve };
    }
    return this.keys.resolve;
  }

  private invalid(description: string): AuthenticationFailed {
    return new AuthenticationFailed(
      description,
      "InvalidAuthenticationToken",
      `Bearer authorization_uri="${this.authority.href}", error="invalid_token", error_description="${challengeText(description)}"`,
    );
  }
}

function expiredMessage(exp: unknown): string {
  if (typeof exp !== "number") return "The token has no expiry (exp).";
  const when =
    Number.isFinite(exp * 1000) && Math.abs(exp) < 8.64e12 ? new Date(exp * 1000).toISOString() : String(exp);
  return `The token expired at ${when}: get a new one.`;
}

/** RFC 6750 §3: error_description holds printable ASCII without '"' or '\'. */
function challengeText(text: string): string {
  return text.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, "");
}
