import {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  type OpenIdIssuer,
  startOpenIdIssuer,
} from "../../dev/stand-ins/openid-issuer";

export type TestIssuer = OpenIdIssuer;

/** The local issuer on a free port, its key in memory, for one test file (beforeAll / afterAll). */
export function startTestIssuer(): Promise<TestIssuer> {
  return startOpenIdIssuer();
}

/** The settings of a host that takes the issuer's tokens, for startTestHost. */
export function entraSettings(issuer: OpenIdIssuer): Record<string, string> {
  return {
    AUTH_MODE: "entra",
    AUTH_AUTHORITY: issuer.authority,
    AUTH_AUDIENCE: `${LOCAL_CLIENT_ID},${LOCAL_APP_ID_URI}`,
    AUTH_ALLOWED_TENANTS: issuer.tenantId,
  };
}
