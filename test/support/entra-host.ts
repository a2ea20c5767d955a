import { randomUUID } from "node:crypto";
import * as path from "node:path";
import {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  type MintOptions,
  type OpenIdIssuer,
  principalObjectId,
  startOpenIdIssuer,
} from "../../dev/stand-ins/openid-issuer";
import { tempDir } from "./temp-dirs";
import { startTestHost, type TestHost } from "./test-host";

/** The principal every entra test host makes Owner at `/` (AUTH_ADMIN_PRINCIPALS). */
export const ADMIN = "admin";

/** A test issuer of its own, on a free port, with its key in a temp folder. */
export function startTestIssuer(): Promise<OpenIdIssuer> {
  return startOpenIdIssuer({ port: 0, keyFile: path.join(tempDir("issuer-"), "issuer-key.json") });
}

/** The host settings of AUTH_MODE=entra against `issuer`, with ADMIN as the bootstrap Owner. */
export function entraSettings(issuer: OpenIdIssuer, cacheSeconds = 0): Record<string, string> {
  return {
    AUTH_MODE: "entra",
    AUTH_AUTHORITY: issuer.authority,
    AUTH_AUDIENCE: `${LOCAL_CLIENT_ID},${LOCAL_APP_ID_URI}`,
    AUTH_ALLOWED_TENANTS: LOCAL_TENANT_ID,
    AUTH_ADMIN_PRINCIPALS: principalObjectId(ADMIN),
    AUTH_CACHE_SECONDS: String(cacheSeconds),
  };
}

/** Requests as a principal: a fresh token of `name` (a user, or an app with `app: true`) on each call. */
export function asPrincipal(host: TestHost, issuer: OpenIdIssuer, options: MintOptions & { name: string }) {
  return async (urlPath: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${await issuer.mint(options)}`);
    return host.request(urlPath, { ...init, headers, key: null });
  };
}

/** Gives `name` a role at `scope` (as ADMIN); returns the assignment's path, for deleting it. */
export async function assignRole(
  host: TestHost,
  issuer: OpenIdIssuer,
  scope: string,
  name: string,
  roleDefinitionName: string,
): Promise<string> {
  const at = `${scope === "/" ? "" : scope}/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
  const response = await asPrincipal(host, issuer, { name: ADMIN })(at, {
    method: "PUT",
    body: JSON.stringify({ principalId: principalObjectId(name), roleDefinitionName }),
  });
  if (response.status !== 201)
    throw new Error(`assigning ${roleDefinitionName}: ${response.status} ${await response.text()}`);
  return at;
}
