import { randomBytes } from "node:crypto";
import { type JWTPayload, SignJWT } from "jose";
import { LOCAL_TENANT_ID } from "../openid/principals";
import type { SigningKey } from "../openid/signing-key";
import { type LocalManagedIdentity, MANAGED_IDENTITY_ISSUER } from "./identities";

/** Real managed identity tokens live 24 h; an hour is enough locally and shows renewal sooner. */
export const TOKEN_LIFETIME_SECONDS = 3600;

/** `https://servicebus.azure.net/.default` and `https://servicebus.azure.net` name one resource. */
export function resourceOf(requested: string): string {
  return requested.replace(/\/\.default$/, "");
}

export interface ManagedIdentityToken {
  accessToken: string;
  expiresOn: number;
  resource: string;
}

/**
 * A token as Entra ID issues one to a managed identity: v1 (`iss` https://sts.windows.net/{tid}/,
 * `appid`), an app token (`idtyp: "app"`), `oid` = `sub` = the identity's principal id and
 * `xms_mirid` its ARM id; signed RS256 with the stand-in's key.
 */
export async function mintManagedIdentityToken(
  key: SigningKey,
  identity: LocalManagedIdentity,
  requestedResource: string,
  now = Math.floor(Date.now() / 1000),
): Promise<ManagedIdentityToken> {
  const resource = resourceOf(requestedResource);
  const expiresOn = now + TOKEN_LIFETIME_SECONDS;
  const claims: JWTPayload = {
    aud: resource,
    iss: MANAGED_IDENTITY_ISSUER,
    iat: now,
    nbf: now,
    exp: expiresOn,
    appid: identity.clientId,
    appidacr: "2",
    idp: MANAGED_IDENTITY_ISSUER,
    idtyp: "app",
    oid: identity.principalId,
    sub: identity.principalId,
    tid: LOCAL_TENANT_ID,
    uti: randomBytes(16).toString("base64url"),
    ver: "1.0",
    xms_mirid: identity.resourceId,
  };
  const accessToken = await new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
    .sign(key.privateKey);
  return { accessToken, expiresOn, resource };
}
