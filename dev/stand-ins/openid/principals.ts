import { createHash } from "node:crypto";

// Who the local issuer speaks for, all fixed or derived from names (no token library: auth-plan.ts
// imports this in the host's process), so ids are the same on every machine and in every release.

/** The local tenant (`tid`), the one tenant the local stack allows. */
export const LOCAL_TENANT_ID = "00000000-0000-4000-8000-00000000a11d";
/** The local app registration's client id (v2 tokens' audience) and App ID URI (v1 tokens'). */
export const LOCAL_CLIENT_ID = "00000000-0000-4000-8000-0000000a0d1e";
export const LOCAL_APP_ID_URI = `api://${LOCAL_CLIENT_ID}`;
/** The principal `npm start` makes an administrator and writes a token for. */
export const DEVELOPER = "developer";

/** A version 4 GUID from the sha-256 of a text: the same text, the same GUID. */
function hashGuid(prefix: string, name: string): string {
  if (name.trim() === "") throw new Error("A principal name must not be empty.");
  const bytes = createHash("sha256").update(`${prefix}${name}`, "utf8").digest().subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return bytes.toString("hex").replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
}

/** The object id (`oid`) of the principal called `name` (compared exactly, case too). */
export function principalObjectId(name: string): string {
  return hashGuid("twin-resource-service:", name);
}

/** The client id (`azp` / `appid`) an app principal signs in with: not its object id, as in Entra ID. */
export function principalClientId(name: string): string {
  return hashGuid("twin-resource-service:client:", name);
}

export const DEVELOPER_OBJECT_ID = principalObjectId(DEVELOPER);

export function isGuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);
}

/** Where tokens of a tenant come from: `{origin}/{tenant}/v2.0` for v2, `{origin}/{tenant}/` for v1. */
export function issuerUrl(origin: string, tenantId: string, version: "1.0" | "2.0" = "2.0"): string {
  return version === "2.0" ? `${origin}/${tenantId}/v2.0` : `${origin}/${tenantId}/`;
}
