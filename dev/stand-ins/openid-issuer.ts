/**
 * The local OpenID Connect issuer: a stand-in for Entra ID's token authority on loopback, so the
 * service validates tokens locally exactly as in Azure (discovery, then the published key set).
 * For a tenant T it serves `GET /{T}/v2.0/.well-known/openid-configuration` and
 * `GET /{T}/discovery/v2.0/keys`, and mints tokens signed with its RSA key. It has no sign-in:
 * `npm run token` and the tests mint tokens directly. Local and tests only; never deployed.
 */
export {
  DEVELOPER,
  DEVELOPER_OBJECT_ID,
  isGuid,
  issuerUrl,
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  principalClientId,
  principalObjectId,
} from "./openid/principals";
export {
  type IssuerFault,
  type OpenIdIssuer,
  type OpenIdIssuerOptions,
  startOpenIdIssuer,
} from "./openid/server";
export {
  generateSigningKey,
  ISSUER_KEY_FILE_NAME,
  loadOrCreateSigningKeyFile,
  readSigningKeyFile,
  type SigningKey,
} from "./openid/signing-key";
export { type MintOptions, mintToken } from "./openid/tokens";
