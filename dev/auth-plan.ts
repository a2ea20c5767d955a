import { issuerKeyFile } from "./local-paths";
import { isSet, type Settings } from "./local-settings";
// Principals, not the issuer's index: that loads jose, which the host's own process never needs.
import {
  DEVELOPER_OBJECT_ID,
  issuerUrl,
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
} from "./stand-ins/openid/principals";

/** The local OpenID issuer `npm start` runs, and what the host is told about it. */
export interface IssuerPlan {
  port: number;
  /** `http://127.0.0.1:{port}/{tenant}/v2.0`: AUTH_AUTHORITY. */
  authority: string;
  tenantId: string;
  clientId: string;
  /** The signing key (a private JWK), made on first start. */
  keyFile: string;
  /** The principal `developer`, whose token `.local/local.env` holds. */
  developerObjectId: string;
  /** Whether the developer is in AUTH_ADMIN_PRINCIPALS (Owner at `/`). */
  developerIsAdmin: boolean;
}

/**
 * An AUTH_AUTHORITY in the local issuer's form (an earlier start's, from a sourced local.env) is
 * replaced by this start's, so an old port never points the host at an issuer that is not there.
 */
export function isLocalIssuerAuthority(value: string): boolean {
  if (!URL.canParse(value.trim())) return false;
  const url = new URL(value.trim());
  return (
    url.protocol === "http:" &&
    ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname) &&
    url.pathname.replace(/\/$/, "").toLowerCase() === `/${LOCAL_TENANT_ID}/v2.0`
  );
}

/**
 * Who may call the local host. AUTH_MODE=keys, or an AUTH_AUTHORITY of the developer's own: no
 * local issuer. Otherwise tokens from the local issuer on ISSUER_PORT, with the developer as
 * administrator; settings the developer gave win.
 */
export function planLocalAuth(settings: Settings, issuerPort: () => number): IssuerPlan | undefined {
  if (settings.AUTH_MODE === "keys") return undefined;
  if (isSet(settings.AUTH_AUTHORITY) && !isLocalIssuerAuthority(settings.AUTH_AUTHORITY)) return undefined;
  const port = issuerPort();
  const authority = issuerUrl(`http://127.0.0.1:${port}`, LOCAL_TENANT_ID);
  if (!isSet(settings.AUTH_MODE)) settings.AUTH_MODE = "entra";
  settings.ISSUER_PORT = String(port);
  settings.AUTH_AUTHORITY = authority;
  if (!isSet(settings.AUTH_AUDIENCE)) settings.AUTH_AUDIENCE = `${LOCAL_CLIENT_ID},${LOCAL_APP_ID_URI}`;
  if (!isSet(settings.AUTH_ALLOWED_TENANTS)) settings.AUTH_ALLOWED_TENANTS = LOCAL_TENANT_ID;
  if (!isSet(settings.AUTH_ADMIN_PRINCIPALS)) settings.AUTH_ADMIN_PRINCIPALS = DEVELOPER_OBJECT_ID;
  const admins = [DEVELOPER_OBJECT_ID, `${LOCAL_TENANT_ID}/${DEVELOPER_OBJECT_ID}`];
  return {
    port,
    authority,
    tenantId: LOCAL_TENANT_ID,
    clientId: LOCAL_CLIENT_ID,
    keyFile: issuerKeyFile(settings),
    developerObjectId: DEVELOPER_OBJECT_ID,
    developerIsAdmin: settings.AUTH_ADMIN_PRINCIPALS.split(",").some((entry) =>
      admins.includes(entry.trim().toLowerCase()),
    ),
  };
}
