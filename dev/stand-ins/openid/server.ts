import * as http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { issuerUrl, LOCAL_TENANT_ID } from "./principals";
import { generateSigningKey, loadOrCreateSigningKeyFile, type SigningKey } from "./signing-key";
import { type MintOptions, mintToken } from "./tokens";

export interface OpenIdIssuerOptions {
  /** 0 (default): a free port. The issuer listens on 127.0.0.1 only. */
  port?: number;
  /** Keep the signing key in this file (a private JWK, mode 0600), made on first start; default: in memory. */
  keyFile?: string;
  /** The tenant tokens are minted for unless a token says otherwise; default the local tenant. */
  tenantId?: string;
}

/**
 * What goes wrong on purpose: `error` answers 500 to everything, `keys-error` answers 500 to the key
 * sets only (discovery still answers), `hang` accepts requests and never answers, `closed` stops
 * listening (and drops open connections); `none` serves again.
 */
export type IssuerFault = "none" | "error" | "keys-error" | "hang" | "closed";

export interface OpenIdIssuer {
  readonly port: number;
  /** `http://127.0.0.1:{port}` */
  readonly origin: string;
  readonly tenantId: string;
  /** `{origin}/{tenantId}/v2.0`: what AUTH_AUTHORITY names. */
  readonly authority: string;
  /** The kid tokens are signed with now. */
  readonly kid: string;
  /** The `iss` of the tenant's tokens (v2 by default). */
  issuer(tenantId?: string, version?: "1.0" | "2.0"): string;
  /** The tenant's discovery document and key set URLs. */
  discoveryUrl(tenantId?: string): string;
  jwksUri(tenantId?: string): string;
  /** A token signed by the current key (or forged as the options say). */
  mint(options?: MintOptions): Promise<string>;
  /** Requests received for a path (a path or a full URL), or in all when none is given. */
  requestCount(pathOrUrl?: string): number;
  /** Requests received per path. */
  requests(): Record<string, number>;
  resetRequestCounts(): void;
  setFault(fault: IssuerFault): Promise<void>;
  /**
   * A new signing key: tokens are signed with it from now on and the key set publishes it.
   * The old key stays published unless `retireOld` (tokens signed with it then fail). In memory only.
   */
  rotateKey(options?: { retireOld?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/** Entra ID's multi-tenant aliases: their discovery names a `{tenantid}` template as issuer. */
const TENANT_ALIASES = new Set(["common", "organizations", "consumers"]);
const TENANT_SEGMENT =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|common|organizations|consumers)$/;

function discoveryDocument(origin: string, tenant: string): Record<string, unknown> {
  const issuer = TENANT_ALIASES.has(tenant) ? issuerUrl(origin, "{tenantid}") : issuerUrl(origin, tenant);
  return {
    issuer,
    authorization_endpoint: `${origin}/${tenant}/oauth2/v2.0/authorize`,
    token_endpoint: `${origin}/${tenant}/oauth2/v2.0/token`,
    jwks_uri: `${origin}/${tenant}/discovery/v2.0/keys`,
    response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
    response_modes_supported: ["query", "fragment", "form_post"],
    subject_types_supported: ["pairwise"],
    id_token_signing_alg_values_supported: ["RS256"],
    scopes_supported: ["openid", "profile", "email", "offline_access"],
    claims_supported: ["sub", "iss", "aud", "exp", "iat", "nbf", "name", "oid", "tid", "ver"],
    request_uri_parameter_supported: false,
  };
}

type Answer = { status: number; body: unknown };

/** The answer to a GET of a path: discovery, keys, or why not. */
function route(pathname: string, origin: string, keys: SigningKey[]): Answer {
  const [, tenant = "", ...rest] = pathname.split("/");
  const tail = rest.join("/");
  if (!TENANT_SEGMENT.test(tenant)) return { status: 404, body: { error: "not_found" } };
  if (tail === "v2.0/.well-known/openid-configuration") {
    return { status: 200, body: discoveryDocument(origin, tenant) };
  }
  if (tail === "discovery/v2.0/keys")
    return { status: 200, body: { keys: keys.map((key) => key.publicJwk) } };
  if (tail.startsWith("oauth2/")) {
    const description = "The local issuer has no sign-in: mint tokens with `npm run token -- <name>`.";
    return { status: 400, body: { error: "unsupported_grant_type", error_description: description } };
  }
  return { status: 404, body: { error: "not_found" } };
}

function countKey(pathOrUrl: string): string {
  return /^https?:\/\//i.test(pathOrUrl) ? new URL(pathOrUrl).pathname : pathOrUrl;
}

/** Starts a local OpenID Connect issuer on 127.0.0.1. */
export async function startOpenIdIssuer(options: OpenIdIssuerOptions = {}): Promise<OpenIdIssuer> {
  const signing = options.keyFile
    ? (await loadOrCreateSigningKeyFile(options.keyFile)).key
    : await generateSigningKey();
  const keys: SigningKey[] = [signing];
  let current = signing;
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  let fault: IssuerFault = "none";
  let origin = "";

  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
    counts.set(pathname, (counts.get(pathname) ?? 0) + 1);
    if (fault === "hang") return;
    const answer: Answer =
      fault === "error" || (fault === "keys-error" && pathname.endsWith("/discovery/v2.0/keys"))
        ? { status: 500, body: { error: "server_error", error_description: "fault injected" } }
        : request.method === "GET" || request.method === "HEAD"
          ? route(pathname, origin, keys)
          : { status: 405, body: { error: "method_not_allowed" } };
    const body = JSON.stringify(answer.body);
    response.writeHead(answer.status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      // As Entra ID answers discovery and keys: cacheable for a day.
      ...(answer.status === 200 && { "cache-control": "max-age=86400, private" }),
    });
    response.end(request.method === "HEAD" ? undefined : body);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });

  const port = await listen(options.port ?? 0);
  origin = `http://127.0.0.1:${port}`;
  const defaultTenant = options.tenantId ?? LOCAL_TENANT_ID;

  return {
    port,
    origin,
    tenantId: defaultTenant,
    authority: issuerUrl(origin, defaultTenant),
    get kid() {
      return current.kid;
    },
    issuer: (tenantId = defaultTenant, version = "2.0") => issuerUrl(origin, tenantId, version),
    discoveryUrl: (tenantId = defaultTenant) => `${origin}/${tenantId}/v2.0/.well-known/openid-configuration`,
    jwksUri: (tenantId = defaultTenant) => `${origin}/${tenantId}/discovery/v2.0/keys`,
    mint: (mintOptions = {}) => mintToken(current, origin, { tenantId: defaultTenant, ...mintOptions }),
    requestCount: (pathOrUrl) =>
      pathOrUrl === undefined
        ? [...counts.values()].reduce((sum, count) => sum + count, 0)
        : (counts.get(countKey(pathOrUrl)) ?? 0),
    requests: () => Object.fromEntries(counts),
    resetRequestCounts: () => counts.clear(),
    async setFault(next) {
      const was = fault;
      fault = next;
      if (next === "closed") await stop();
      else if (was === "closed") await listen(port);
      // Requests left hanging are dropped when the hang ends, as a server giving up would.
      if (was === "hang" && next !== "hang") for (const socket of sockets) socket.destroy();
    },
    async rotateKey(rotation = {}) {
      const next = await generateSigningKey();
      if (rotation.retireOld) keys.splice(0);
      keys.push(next);
      current = next;
      return next.kid;
    },
    close: stop,
  };
}
