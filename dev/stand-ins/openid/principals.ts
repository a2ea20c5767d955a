import { createHash } from "node:crypto";

/**
 * Who the local issuer speaks for. Everything here is fixed or derived, so a token minted today
 * and a role assignment made last week name the same principal on every machine.
 */

/** The local tenant: tokens carry it as `tid`, and it is the one tenant the local stack allows. */
export const LOCAL_TENANT_ID = "00000000-0000-4000-8000-00000000a11d";
/** The local app registration's client id: the audience of local tokens. */
export const LOCAL_CLIENT_ID = "00000000-0000-4000-8000-0000000a0d1e";
/** Its App ID URI, the other spelling of the same audience (v1 tokens carry this one). */
export const LOCAL_APP_ID_URI = `api://${LOCAL_CLIENT_ID}`;
/** The principal `npm start` makes an administrator and writes a token for. */
export const DEVELOPER = "developer";

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A GUID in the shape of a version 4 UUID made from the hash of a text, so the same text always
 * gives the same GUID and different texts give different ones (as different as sha-256 is).
 */
function hashGuid(text: string): string {
  const bytes = createHash("sha256").update(text, "utf8").digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Refuses a principal name that names no one (empty or blank). */
export function assertPrincipalName(name: string): void {
  if (name.trim() === "") throw new Error("A principal name must not be empty.");
}

/** The object id (`oid`) of the principal called `name`; names are compared exactly (case too). */
export function principalObjectId(name: string): string {
  assertPrincipalName(name);
  return hashGuid(`twin-resource-service:${name}`);
}

/** The client id (`azp` / `appid`) an app principal signs in with: not its object id, as in Entra ID. */
export function principalClientId(name: string): string {
  assertPrincipalName(name);
  return hashGuid(`twin-resource-service:client:${name}`);
}

/** The developer's object id: AUTH_ADMIN_PRINCIPALS of `npm start`. */
export const DEVELOPER_OBJECT_ID = principalObjectId(DEVELOPER);

export function isGuid(value: string): boolean {
  return GUID.test(value);
}

/** Where tokens of a tenant come from: `{origin}/{tenant}/v2.0` for v2, `{origin}/{tenant}/` for v1. */
export function issuerUrl(origin: string, tenantId: string, version: "1.0" | "2.0" = "2.0"): string {
  return version === "2.0" ? `${origin}/${tenantId}/v2.0` : `${origin}/${tenantId}/`;
}
