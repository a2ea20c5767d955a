import { createHash, type KeyObject, randomBytes } from "node:crypto";
import { type JWTPayload, SignJWT, UnsecuredJWT } from "jose";
import {
  DEVELOPER,
  issuerUrl,
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  principalClientId,
  principalObjectId,
} from "./principals";
import type { SigningKey } from "./signing-key";

/**
 * What a token says, shaped like Entra ID's access tokens (v2 by default, v1 on request), and the
 * levers tests use to forge bad ones: any claim or header changed or removed, another key, no
 * signature at all.
 */
export interface MintOptions {
  /** The principal's name; its object id (`oid`) is principalObjectId(name). Default `developer`. */
  name?: string;
  /** An application (ServicePrincipal) token: `idtyp: "app"`, `roles` when given, no `scp`. */
  app?: boolean;
  /** "2.0" (default): issuer `{origin}/{tid}/v2.0`, aud the client id; "1.0": issuer `{origin}/{tid}/`, aud the App ID URI. */
  version?: "1.0" | "2.0";
  /** `tid` (and the tenant in `iss`); default the issuer's tenant. */
  tenantId?: string;
  /** `aud`; default the local client id (v2) or App ID URI (v1). */
  audience?: string;
  /** `exp` − `iat`; default 3600. */
  lifetimeSeconds?: number;
  /** The clock, in seconds since the epoch (`iat` and `nbf` = now); default the real one. */
  now?: number;
  /** A user token's `scp` (space-separated in the token); default `user_impersonation`. */
  scopes?: string[];
  /** An app token's `roles`. */
  roles?: string[];
  /** Merged over the claims last; a claim set to undefined is removed. */
  claims?: Record<string, unknown>;
  /** Merged over the protected header (`alg`, `kid`, `typ`) last; undefined removes a parameter. */
  header?: Record<string, unknown>;
  /** Sign with this key instead of the issuer's (give `header.alg` to match, e.g. HS256 for a secret). */
  signingKey?: KeyObject | Uint8Array;
  /** `alg: "none"`, no signature. */
  unsigned?: boolean;
}

/** The Azure CLI's public client id: the app a developer's user token is typically requested through. */
const DEVELOPER_TOOL_CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46";

/** Entra ID's user `sub` is pairwise (per app) and is not the object id: code that keys on it is wrong. */
function pairwiseSubject(name: string, audience: string): string {
  return createHash("sha256").update(`sub:${name}:${audience}`).digest("base64url").slice(0, 43);
}

function withOverrides(
  base: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base, ...overrides };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  return merged;
}

/** The claims of a token as the options describe it, before overrides. */
function baseClaims(origin: string, options: MintOptions): Record<string, unknown> {
  const name = options.name ?? DEVELOPER;
  const version = options.version ?? "2.0";
  const tenantId = options.tenantId ?? LOCAL_TENANT_ID;
  const audience = options.audience ?? (version === "2.0" ? LOCAL_CLIENT_ID : LOCAL_APP_ID_URI);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const oid = principalObjectId(name);
  const client = options.app ? principalClientId(name) : DEVELOPER_TOOL_CLIENT_ID;
  return {
    aud: audience,
    iss: issuerUrl(origin, tenantId, version),
    iat: now,
    nbf: now,
    exp: now + (options.lifetimeSeconds ?? 3600),
    ...(version === "2.0"
      ? { azp: client, azpacr: options.app ? "1" : "0" }
      : { appid: client, appidacr: options.app ? "1" : "0" }),
    ...(options.app
      ? { idtyp: "app", ...(options.roles && { roles: options.roles }) }
      : { scp: (options.scopes ?? ["user_impersonation"]).join(" ") }),
    name,
    oid,
    // An app's sub is its object id; a user's is pairwise.
    sub: options.app ? oid : pairwiseSubject(name, audience),
    tid: tenantId,
    uti: randomBytes(16).toString("base64url"),
    ver: version,
  };
}

/** A token for the options, signed with the key (unless the options forge it otherwise). */
export async function mintToken(key: SigningKey, origin: string, options: MintOptions = {}): Promise<string> {
  const claims = withOverrides(baseClaims(origin, options), options.claims) as JWTPayload;
  if (options.unsigned) return new UnsecuredJWT(claims).encode();
  const header = withOverrides({ alg: "RS256", kid: key.kid, typ: "JWT" }, options.header);
  return new SignJWT(claims)
    .setProtectedHeader(header as { alg: string })
    .sign(options.signingKey ?? key.privateKey);
}
