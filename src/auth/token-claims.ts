import type { JWTPayload } from "jose";
import type { EntraPrincipal } from "./principal";

/** The claims of an Entra ID access token that the service reads. */
export interface EntraClaims extends JWTPayload {
  tid?: unknown;
  oid?: unknown;
  ver?: unknown;
  idtyp?: unknown;
  scp?: unknown;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isGuid(value: unknown): value is string {
  return typeof value === "string" && GUID.test(value);
}

/**
 * User or ServicePrincipal, as Entra ID tells: `idtyp` when the app asked for it, otherwise a
 * delegated token (one with scopes, `scp`) is a user's and an app-only token a service principal's.
 */
export function principalTypeOf(claims: EntraClaims): EntraPrincipal["type"] {
  if (claims.idtyp === "app") return "ServicePrincipal";
  if (claims.idtyp === "user") return "User";
  return typeof claims.scp === "string" ? "User" : "ServicePrincipal";
}

/** The principal of a validated token: its object id in its tenant. */
export function principalOf(claims: EntraClaims): EntraPrincipal {
  return {
    kind: "entra",
    objectId: String(claims.oid).toLowerCase(),
    tenantId: String(claims.tid).toLowerCase(),
    type: principalTypeOf(claims),
  };
}

/** The audiences a token may name: each configured one, a client id also as `api://{id}` and back. */
export function acceptedAudiences(configured: readonly string[]): string[] {
  const audiences = new Set<string>();
  for (const audience of configured) {
    audiences.add(audience);
    if (isGuid(audience)) audiences.add(`api://${audience}`);
    const appIdUri = /^api:\/\/([0-9a-f-]{36})$/i.exec(audience)?.[1];
    if (appIdUri !== undefined && isGuid(appIdUri)) audiences.add(appIdUri);
  }
  return [...audiences];
}

const MICROSOFT_V1_ISSUERS: Readonly<Record<string, string>> = {
  "login.microsoftonline.com": "https://sts.windows.net/{tenantid}/",
  "login.microsoftonline.us": "https://sts.windows.net/{tenantid}/",
  "login.chinacloudapi.cn": "https://sts.chinacloudapi.cn/{tenantid}/",
  "login.partner.microsoftonline.cn": "https://sts.chinacloudapi.cn/{tenantid}/",
};

/**
 * The issuers a token of tenant `tenantId` may carry: the discovery issuer (v2 tokens), and the v1
 * issuer, which Entra ID writes as `https://sts.windows.net/{tid}/` whatever the authority; for
 * another authority (the local issuer), the v2 issuer without its `v2.0` segment.
 */
export function acceptedIssuers(discoveryIssuer: string, authority: URL, tenantId: string): string[] {
  const v2 = discoveryIssuer.replace(/\{tenantid\}/gi, tenantId);
  const v1Template =
    MICROSOFT_V1_ISSUERS[authority.hostname.toLowerCase()] ?? discoveryIssuer.replace(/v2\.0\/?$/, "");
  return [v2, v1Template.replace(/\{tenantid\}/gi, tenantId)];
}

/** The tenant a single-tenant issuer names (its GUID path segment), if any. */
export function issuerTenant(discoveryIssuer: string): string | undefined {
  const path = URL.canParse(discoveryIssuer) ? new URL(discoveryIssuer).pathname : "";
  return path
    .split("/")
    .find((segment) => isGuid(segment))
    ?.toLowerCase();
}
