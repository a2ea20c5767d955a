import {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  type MintOptions,
  type OpenIdIssuer,
  type OpenIdIssuerOptions,
  principalObjectId,
  startOpenIdIssuer,
} from "../../dev/stand-ins/openid-issuer";

export type { IssuerFault, MintOptions, OpenIdIssuer } from "../../dev/stand-ins/openid-issuer";
export {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  principalObjectId,
} from "../../dev/stand-ins/openid-issuer";

export interface TestIssuer extends OpenIdIssuer {
  /** A v2 user token for the principal called `name` (options as mint's; `name` is this one). */
  userToken(name: string, options?: Omit<MintOptions, "name" | "app">): Promise<string>;
  /** A v2 application (ServicePrincipal) token for the principal called `name`. */
  appToken(name: string, options?: Omit<MintOptions, "name" | "app">): Promise<string>;
  /** The object id of the principal called `name` (what role assignments name). */
  objectId(name: string): string;
}

/**
 * The local OpenID issuer in this process on a free port, its key in memory, for one test file:
 * start it in beforeAll, close it in afterAll. Every host of the file may trust it (entraSettings).
 */
export async function startTestIssuer(options: OpenIdIssuerOptions = {}): Promise<TestIssuer> {
  const issuer = await startOpenIdIssuer(options);
  // Spread would read the getter (kid) once; the issuer object is extended instead.
  return Object.assign(issuer, {
    userToken: (name: string, mint: Omit<MintOptions, "name" | "app"> = {}) => issuer.mint({ ...mint, name }),
    appToken: (name: string, mint: Omit<MintOptions, "name" | "app"> = {}) =>
      issuer.mint({ ...mint, name, app: true }),
    objectId: principalObjectId,
  });
}

/**
 * The settings of a host that takes this issuer's tokens (AUTH_MODE=entra), for startTestHost:
 * `startTestHost({ ...entraSettings(issuer), AUTH_ADMIN_PRINCIPALS: issuer.objectId("admin") })`.
 */
export function entraSettings(issuer: OpenIdIssuer): Record<string, string> {
  return {
    AUTH_MODE: "entra",
    AUTH_AUTHORITY: issuer.authority,
    AUTH_AUDIENCE: `${LOCAL_CLIENT_ID},${LOCAL_APP_ID_URI}`,
    AUTH_ALLOWED_TENANTS: issuer.tenantId,
  };
}

/** Request headers that carry a bearer token; with TestHost.request pass `key: null` too. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
