import type { SigningKey } from "../openid/signing-key";
import { mintToken } from "../openid/tokens";
import { type LocalManagedIdentity, MANAGED_IDENTITY_ISSUER } from "./identities";

/** Entra ID's v1 issuer origin: `iss` is `{origin}/{tenant}/`, MANAGED_IDENTITY_ISSUER. */
const STS_ORIGIN = "https://sts.windows.net";

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
 * A token as Entra ID issues one to a managed identity, minted as the local issuer mints app
 * tokens (openid/tokens.ts) with the v1 shape: `iss` https://sts.windows.net/{tid}/, `appid`,
 * `idtyp: "app"`, `oid` = `sub` = the identity's principal id, and `xms_mirid` its ARM id; no
 * `name`, as managed identity tokens carry none. Signed RS256 with the stand-in's key.
 */
export async function mintManagedIdentityToken(
  key: SigningKey,
  identity: LocalManagedIdentity,
  requestedResource: string,
  now = Math.floor(Date.now() / 1000),
): Promise<ManagedIdentityToken> {
  const resource = resourceOf(requestedResource);
  const accessToken = await mintToken(key, STS_ORIGIN, {
    name: identity.principalName,
    app: true,
    version: "1.0",
    audience: resource,
    now,
    lifetimeSeconds: TOKEN_LIFETIME_SECONDS,
    claims: {
      appidacr: "2",
      idp: MANAGED_IDENTITY_ISSUER,
      name: undefined,
      xms_mirid: identity.resourceId,
    },
  });
  return { accessToken, expiresOn: now + TOKEN_LIFETIME_SECONDS, resource };
}
