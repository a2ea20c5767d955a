import { randomUUID } from "node:crypto";
import { type MintOptions, type OpenIdIssuer, principalObjectId } from "../../dev/stand-ins/openid-issuer";
import type { TestHost } from "./test-host";
import { entraSettings } from "./test-issuer";

/** The principal every entra test host here makes Owner at `/` (AUTH_ADMIN_PRINCIPALS). */
export const ADMIN = "admin";

/** A host's settings under AUTH_MODE=entra with `issuer`, ADMIN as bootstrap Owner, and a grants cache. */
export function adminEntraSettings(issuer: OpenIdIssuer, cacheSeconds = 0): Record<string, string> {
  return {
    ...entraSettings(issuer),
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
