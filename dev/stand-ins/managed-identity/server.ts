import { randomBytes, timingSafeEqual } from "node:crypto";
import { generateSigningKey, loadOrCreateSigningKeyFile, loopbackServer, mintToken } from "../openid-issuer";
import { findIdentity, MANAGED_IDENTITY_ISSUER } from "./identities";

/**
 * A stand-in for App Service's managed identity endpoint (IDENTITY_ENDPOINT), so `@azure/identity`'s
 * ManagedIdentityCredential works unmodified: `GET /msi/token?resource=…&api-version=2019-08-01
 * [&client_id|mi_res_id|object_id|principal_id=…]` with header `X-IDENTITY-HEADER`, answered as App
 * Service does. `GET /msi/keys` publishes the key its tokens verify with (the Service Bus stand-in's
 * stand-in for Entra ID's key set).
 */
export type ManagedIdentityEndpoint = Awaited<ReturnType<typeof startManagedIdentityEndpoint>>;

const API_VERSION = "2019-08-01";
const TOKEN_PATH = "/msi/token";
export const KEYS_PATH = "/msi/keys";
/** Real managed identity tokens live 24 h; an hour shows renewal sooner. */
const LIFETIME_SECONDS = 3600;

// App Service's error body; MSAL reports `message` to the caller.
const failure = (status: number, message: string) => ({
  status,
  body: { statusCode: status, message, error: "invalid_request", error_description: message },
});

function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  const a = Buffer.from(String(given));
  const b = Buffer.from(expected);
  return typeof given === "string" && a.length === b.length && timingSafeEqual(a, b);
}

/** On 127.0.0.1 (a free port by default), with a random header secret and an in-memory key by default. */
export async function startManagedIdentityEndpoint(
  options: { port?: number; header?: string; keyFile?: string } = {},
) {
  const key = await (options.keyFile ? loadOrCreateSigningKeyFile(options.keyFile) : generateSigningKey());
  const secret = options.header ?? randomBytes(24).toString("base64url");
  let issued = 0;
  let held = 0;
  // While the hang switch is on: what held token requests wait for.
  let hanging: { released: Promise<void>; release(): void } | undefined;
  const server = loopbackServer(async (request) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (hanging && url.pathname === TOKEN_PATH) {
      held++;
      await hanging.released;
    }
    if (request.method !== "GET") return failure(405, "Only GET is served.");
    if (url.pathname === KEYS_PATH) return { status: 200, body: { keys: [key.publicJwk] } };
    if (url.pathname !== TOKEN_PATH) return failure(404, "Not found.");
    if (!sameSecret(request.headers["x-identity-header"], secret))
      return failure(401, "The X-IDENTITY-HEADER header is missing or does not match IDENTITY_HEADER.");
    const query = url.searchParams;
    if (query.get("api-version") !== API_VERSION) return failure(400, `api-version must be ${API_VERSION}.`);
    // `https://servicebus.azure.net/.default` and `https://servicebus.azure.net` name one resource.
    const resource = query.get("resource")?.replace(/\/\.default$/, "");
    if (!resource) return failure(400, "The resource parameter is required.");
    const identity = findIdentity(query);
    if (identity === undefined) return failure(400, "Identity not found");
    // As Entra ID issues one to a managed identity: a v1 app token, `oid` = `sub` = its principal
    // id, `xms_mirid` its ARM id, no `name`.
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      appidacr: "2",
      idp: MANAGED_IDENTITY_ISSUER,
      name: undefined,
      xms_mirid: identity.resourceId,
    };
    const access_token = await mintToken(key, "https://sts.windows.net", {
      name: identity.principalName,
      app: true,
      version: "1.0",
      audience: resource,
      now,
      lifetimeSeconds: LIFETIME_SECONDS,
      claims,
    });
    issued++;
    // App Service answers expires_on in seconds since the epoch, as a string.
    const expires_on = String(now + LIFETIME_SECONDS);
    const body = { access_token, expires_on, resource, token_type: "Bearer", client_id: identity.clientId };
    return { status: 200, body };
  });
  const port = await server.listen(options.port ?? 0);
  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    /** IDENTITY_ENDPOINT and IDENTITY_HEADER. */
    endpoint: `${origin}${TOKEN_PATH}`,
    header: secret,
    jwksUri: `${origin}${KEYS_PATH}`,
    signingKey: key,
    /** Token requests answered 200 (tests check that credentials cache). */
    tokensIssued: () => issued,
    /**
     * A fault switch: while on, token requests are taken and not answered, as by an endpoint that
     * hangs; once off, it answers again, and, late, those it held.
     */
    hang(on: boolean) {
      if (on && !hanging) {
        let release = () => {};
        hanging = { released: new Promise<void>((resolve) => (release = resolve)), release: () => release() };
      } else if (!on) {
        hanging?.release();
        hanging = undefined;
      }
    },
    /** Token requests the switch has held so far. */
    tokensHeld: () => held,
    close: server.close,
  };
}
