import type { Actor } from "../common/system-data";

/** An Entra ID principal, from a validated token. */
export interface EntraPrincipal {
  kind: "entra";
  objectId: string;
  tenantId: string;
  type: "User" | "ServicePrincipal";
}

/** A caller the Functions host let in with a key (AUTH_MODE=keys): `default` or `_master`. */
export interface KeyPrincipal {
  kind: "key";
  keyName: "default" | "_master";
}

/** A route that needs no caller (/health, /openapi.json). */
export interface AnonymousPrincipal {
  kind: "anonymous";
}

export type Principal = EntraPrincipal | KeyPrincipal | AnonymousPrincipal;

export const ANONYMOUS: AnonymousPrincipal = { kind: "anonymous" };

/** Who a write is recorded as in systemData. */
export function actorOf(principal: Principal): Actor {
  switch (principal.kind) {
    case "entra":
      return { id: principal.objectId, type: principal.type, tenantId: principal.tenantId };
    case "key":
      return { id: principal.keyName, type: "Key" };
    default:
      return { id: "anonymous", type: "Key" };
  }
}

/** How a log line names the caller: an object id or a key's name, never a credential. */
export function describePrincipal(principal: Principal): string {
  switch (principal.kind) {
    case "entra":
      return `principal ${principal.objectId}`;
    case "key":
      return `key ${principal.keyName}`;
    default:
      return "anonymous";
  }
}
