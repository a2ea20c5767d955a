import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
  randomUUID,
} from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import * as path from "node:path";
import { calculateJwkThumbprint, type JWK, type JWTPayload, SignJWT, UnsecuredJWT } from "jose";
import { displayPath } from "../local-paths";
import { StartupError } from "../startup-error";
import {
  DEVELOPER,
  issuerUrl,
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  principalClientId,
  principalObjectId,
} from "./openid/principals";

/**
 * The local stand-in for Entra ID's token authority, so the service validates tokens exactly as in
 * Azure: for a tenant T, `GET /{T}/v2.0/.well-known/openid-configuration` and
 * `GET /{T}/discovery/v2.0/keys`. No sign-in: `npm run token` and the tests mint tokens directly.
 */
export * from "./openid/principals";

/** An RSA key the issuer signs with; `publicJwk` is what the key set serves. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: JWK;
}

async function fromPrivateKey(privateKey: KeyObject): Promise<SigningKey> {
  const { kty, n, e } = privateKey.export({ format: "jwk" });
  // The RFC 7638 thumbprint: the same key always gets the same kid.
  const kid = await calculateJwkThumbprint({ kty, n, e } as JWK);
  return { kid, privateKey, publicJwk: { kty, n, e, kid, use: "sig", alg: "RS256" } as JWK };
}

export function generateSigningKey(): Promise<SigningKey> {
  return fromPrivateKey(generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey);
}

/** The key in a key file (a private JWK), tightened to owner-only; a way out when it is missing or bad. */
export async function readSigningKeyFile(file: string): Promise<SigningKey> {
  if (!fs.existsSync(file)) {
    throw new StartupError(
      `No local issuer key at ${displayPath(file)}: run \`npm start\` first (it creates one).`,
    );
  }
  let privateKey: KeyObject;
  try {
    const jwk = JSON.parse(fs.readFileSync(file, "utf8")) as JWK;
    if (jwk?.kty !== "RSA" || typeof jwk.d !== "string") throw new Error("not an RSA private key");
    privateKey = createPrivateKey({ key: jwk as JsonWebKey, format: "jwk" });
  } catch (error) {
    throw new StartupError(
      `${displayPath(file)} does not hold the local issuer's RSA private key (${(error as Error).message}); delete it and \`npm start\` makes a new one (tokens signed with the old key stop working).`,
    );
  }
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  return fromPrivateKey(privateKey);
}

/** The key in the file, made on first use: written aside and linked into place, so racing starts share one. */
export async function loadOrCreateSigningKeyFile(file: string): Promise<SigningKey> {
  if (fs.existsSync(file)) return readSigningKeyFile(file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const key = await generateSigningKey();
  const aside = `${file}.${randomUUID()}.tmp`;
  const jwk = { ...key.privateKey.export({ format: "jwk" }), kid: key.kid, use: "sig", alg: "RS256" };
  fs.writeFileSync(aside, `${JSON.stringify(jwk)}\n`, { mode: 0o600, flag: "wx" });
  try {
    fs.linkSync(aside, file);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return await readSigningKeyFile(file);
  } finally {
    fs.unlinkSync(aside);
  }
}

/** A token shaped like Entra ID's access tokens (v2, or v1 on request), and the levers to forge bad ones. */
export interface MintOptions {
  /** The principal; `oid` is principalObjectId(name). Default `developer`. */
  name?: string;
  /** An application token: `idtyp: "app"`, `roles` when given, no `scp` (a user's is `user_impersonation`). */
  app?: boolean;
  /** "2.0": iss `{origin}/{tid}/v2.0`, aud the client id; "1.0": iss `{origin}/{tid}/`, aud the App ID URI. */
  version?: "1.0" | "2.0";
  tenantId?: string;
  audience?: string;
  /** Default 3600. */
  lifetimeSeconds?: number;
  /** Seconds since the epoch (`iat` = `nbf`). */
  now?: number;
  roles?: string[];
  /** Merged over the claims, then the header, last; undefined removes one. */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /** Another key (give `header.alg` to match, e.g. HS256 for a secret). */
  signingKey?: KeyObject | Uint8Array;
  /** `alg: "none"`. */
  unsigned?: boolean;
}

/** The Azure CLI's client id: what a developer's user token is typically requested through. */
const DEVELOPER_TOOL_CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46";

function withOverrides(base: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  const merged: Record<string, unknown> = { ...base, ...overrides };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  return merged;
}

export async function mintToken(key: SigningKey, origin: string, options: MintOptions = {}): Promise<string> {
  const { name = DEVELOPER, version = "2.0", tenantId = LOCAL_TENANT_ID, app } = options;
  const audience = options.audience ?? (version === "2.0" ? LOCAL_CLIENT_ID : LOCAL_APP_ID_URI);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const oid = principalObjectId(name);
  const client = app ? principalClientId(name) : DEVELOPER_TOOL_CLIENT_ID;
  const base = {
    aud: audience,
    iss: issuerUrl(origin, tenantId, version),
    iat: now,
    nbf: now,
    exp: now + (options.lifetimeSeconds ?? 3600),
    ...(version === "2.0"
      ? { azp: client, azpacr: app ? "1" : "0" }
      : { appid: client, appidacr: app ? "1" : "0" }),
    ...(app
      ? { idtyp: "app", ...(options.roles && { roles: options.roles }) }
      : { scp: "user_impersonation" }),
    name,
    oid,
    // An app's sub is its oid; a user's is pairwise (per app), so code keying on it is wrong.
    sub: app ? oid : createHash("sha256").update(`sub:${name}:${audience}`).digest("base64url").slice(0, 43),
    tid: tenantId,
    uti: randomUUID(),
    ver: version,
  };
  const claims = withOverrides(base, options.claims) as JWTPayload;
  if (options.unsigned) return new UnsecuredJWT(claims).encode();
  const header = withOverrides({ alg: "RS256", kid: key.kid, typ: "JWT" }, options.header);
  return new SignJWT(claims)
    .setProtectedHeader(header as { alg: string })
    .sign(options.signingKey ?? key.privateKey);
}

type Answer = { status: number; body: unknown };

/** A JSON server on 127.0.0.1 that can stop listening (dropping open connections) and listen again. */
export function loopbackServer(
  answer: (request: http.IncomingMessage) => Promise<Answer | undefined>,
  okHeaders: Record<string, string> = {},
) {
  const sockets = new Set<Socket>();
  const server = http.createServer(async (request, response) => {
    const reply = await answer(request).catch((error: Error) => ({
      status: 500,
      body: { error: error.message },
    }));
    if (reply === undefined) return; // left hanging on purpose
    const body = JSON.stringify(reply.body);
    response.writeHead(reply.status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      ...(reply.status === 200 && okHeaders),
    });
    response.end(request.method === "HEAD" ? undefined : body);
  });
  server.on("connection", (socket) => sockets.add(socket.once("close", () => sockets.delete(socket))));
  const dropConnections = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    dropConnections,
    listen: (port: number) =>
      new Promise<number>((resolve, reject) => {
        server.once("error", reject).listen(port, "127.0.0.1", () => {
          server.off("error", reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        dropConnections();
      }),
  };
}

/**
 * `error`: 500 to everything; `keys-error`: 500 to key sets only; `hang`: never answers (the
 * requests are dropped when it ends); `closed`: stops listening; `none`: serves again.
 */
export type IssuerFault = "none" | "error" | "keys-error" | "hang" | "closed";
export type OpenIdIssuerOptions = { port?: number; keyFile?: string };
export type OpenIdIssuer = Awaited<ReturnType<typeof startOpenIdIssuer>>;

const TENANT =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|common|organizations|consumers)$/;

function route(pathname: string, origin: string, keys: SigningKey[]): Answer {
  const [, tenant = "", ...rest] = pathname.split("/");
  const tail = rest.join("/");
  if (!TENANT.test(tenant)) return { status: 404, body: { error: "not_found" } };
  if (tail === "discovery/v2.0/keys")
    return { status: 200, body: { keys: keys.map((key) => key.publicJwk) } };
  if (tail !== "v2.0/.well-known/openid-configuration") return { status: 404, body: { error: "not_found" } };
  // Entra ID's multi-tenant aliases name a `{tenantid}` template as issuer.
  const alias = !tenant.includes("-");
  return {
    status: 200,
    body: {
      issuer: issuerUrl(origin, alias ? "{tenantid}" : tenant),
      authorization_endpoint: `${origin}/${tenant}/oauth2/v2.0/authorize`,
      token_endpoint: `${origin}/${tenant}/oauth2/v2.0/token`,
      jwks_uri: `${origin}/${tenant}/discovery/v2.0/keys`,
      response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
      subject_types_supported: ["pairwise"],
      id_token_signing_alg_values_supported: ["RS256"],
    },
  };
}

/** Starts the issuer on 127.0.0.1 (a free port by default), its key in `keyFile` or in memory. */
export async function startOpenIdIssuer(options: OpenIdIssuerOptions = {}) {
  const keys = [await (options.keyFile ? loadOrCreateSigningKeyFile(options.keyFile) : generateSigningKey())];
  let current = keys[0] as SigningKey;
  const counts = new Map<string, number>();
  let fault: IssuerFault = "none";
  let origin = "";
  const server = loopbackServer(
    async (request) => {
      const pathname = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
      counts.set(pathname, (counts.get(pathname) ?? 0) + 1);
      if (fault === "hang") return undefined;
      if (fault === "error" || (fault === "keys-error" && pathname.endsWith("/discovery/v2.0/keys")))
        return { status: 500, body: { error: "server_error", error_description: "fault injected" } };
      if (request.method !== "GET" && request.method !== "HEAD")
        return { status: 405, body: { error: "method_not_allowed" } };
      return route(pathname, origin, keys);
    },
    // As Entra ID answers discovery and keys: cacheable for a day.
    { "cache-control": "max-age=86400, private" },
  );
  const port = await server.listen(options.port ?? 0);
  origin = `http://127.0.0.1:${port}`;
  const tenant = LOCAL_TENANT_ID;
  return {
    port,
    origin,
    tenantId: tenant,
    /** What AUTH_AUTHORITY names. */
    authority: issuerUrl(origin, tenant),
    /** The kid tokens are signed with now. */
    get kid() {
      return current.kid;
    },
    issuer: (tenantId = tenant, version: "1.0" | "2.0" = "2.0") => issuerUrl(origin, tenantId, version),
    discoveryUrl: (tenantId = tenant) => `${origin}/${tenantId}/v2.0/.well-known/openid-configuration`,
    jwksUri: (tenantId = tenant) => `${origin}/${tenantId}/discovery/v2.0/keys`,
    mint: (mint: MintOptions = {}) => mintToken(current, origin, { tenantId: tenant, ...mint }),
    /** Requests received for a path (or full URL), or in all. */
    requestCount: (pathOrUrl?: string) =>
      pathOrUrl === undefined
        ? [...counts.values()].reduce((sum, count) => sum + count, 0)
        : (counts.get(pathOrUrl.includes("://") ? new URL(pathOrUrl).pathname : pathOrUrl) ?? 0),
    requests: () => Object.fromEntries(counts),
    resetRequestCounts: () => counts.clear(),
    async setFault(next: IssuerFault) {
      const was = fault;
      fault = next;
      if (next === "closed") await server.close();
      else if (was === "closed") await server.listen(port);
      if (was === "hang" && next !== "hang") server.dropConnections();
    },
    /** A new key signs from now on; the old one stays published unless retired. In memory only. */
    async rotateKey(rotation: { retireOld?: boolean } = {}) {
      current = await generateSigningKey();
      if (rotation.retireOld) keys.splice(0);
      keys.push(current);
      return current.kid;
    },
    close: server.close,
  };
}
