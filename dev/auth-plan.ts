import { issuerKeyFile } from "./local-paths";
import type { Settings } from "./local-settings";
// From principals, not the issuer's index: that loads the issuer and its token library (jose), which
// the local host's own process (it imports this through stack.ts) never runs.
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
  /** Where the signing key is kept (a private JWK), made on first start. */
  keyFile: string;
  /** The object id of the principal `developer`, whose token `.local/local.env` holds. */
  developerObjectId: string;
  /** Whether the developer is in AUTH_ADMIN_PRINCIPALS (Owner at `/`); not when the settings name others. */
  developerIsAdmin: boolean;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/**
 * An AUTH_AUTHORITY in the local issuer's form is the local issuer (a shell that sourced
 * `.local/local.env` carries the last start's): it is replaced by the one this start runs, so an
 * old port can never point the host at an issuer that is not there.
 */
export function isLocalIssuerAuthority(value: string): boolean {
  if (!URL.canParse(value.trim())) return false;
  const url = new URL(value.trim());
  return (
    url.protocol === "http:" &&
    LOOPBACK_HOSTS.has(url.hostname) &&
    url.pathname.replace(/\/$/, "").toLowerCase() === `/${LOCAL_TENANT_ID}/v2.0`
  );
}

/**
 * Who may call the local host. AUTH_MODE=keys: the function and master keys, no issuer. An
 * AUTH_AUTHORITY of the developer's own (a real tenant): tokens from it, no local issuer.
 * Otherwise (the default) Entra ID tokens from the local issuer on ISSUER_PORT, for the local
 * audience and tenant, with the developer as administrator; settings the developer gave win.
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
  return {
    port,
    authority,
    tenantId: LOCAL_TENANT_ID,
    clientId: LOCAL_CLIENT_ID,
    keyFile: issuerKeyFile(settings),
    developerObjectId: DEVELOPER_OBJECT_ID,
    // An entry is `{tenant}/{object id}` or an object id of the authority's (the local) tenant.
    developerIsAdmin: settings.AUTH_ADMIN_PRINCIPALS.split(",").some((entry) =>
      [DEVELOPER_OBJECT_ID, `${LOCAL_TENANT_ID}/${DEVELOPER_OBJECT_ID}`].includes(entry.trim().toLowerCase()),
    ),
  };
}
