import { ServiceUnavailable } from "../common/errors";

/** What the service needs of an authority's OpenID discovery document. */
export interface OpenIdMetadata {
  /** The issuer, with `{tenantid}` where a multi-tenant authority puts the token's tenant. */
  issuer: string;
  jwksUri: URL;
}

/** How long discovery may take before the caller is told 503. */
const DISCOVERY_TIMEOUT_MS = 5000;
/** A found document is kept this long (the keys behind it are refreshed on their own). */
const DISCOVERY_TTL_MS = 24 * 3600 * 1000;

export class AuthorityUnavailable extends ServiceUnavailable {
  constructor(detail: string, retryAfterSeconds = 5) {
    super(`The token authority cannot be reached (${detail}); retry shortly.`, retryAfterSeconds);
  }
}

function parseMetadata(body: unknown, authority: URL): OpenIdMetadata {
  const document = body as { issuer?: unknown; jwks_uri?: unknown } | null;
  if (typeof document?.issuer !== "string" || typeof document.jwks_uri !== "string")
    throw new AuthorityUnavailable("its discovery document has no issuer or jwks_uri");
  const jwksUri = URL.canParse(document.jwks_uri) ? new URL(document.jwks_uri) : undefined;
  // Keys only from where the authority lives (https, or the loopback issuer it was configured as).
  if (jwksUri === undefined || (jwksUri.protocol !== "https:" && jwksUri.origin !== authority.origin))
    throw new AuthorityUnavailable("its jwks_uri is not an https URL");
  return { issuer: document.issuer, jwksUri };
}

/**
 * The authority's discovery document (`{authority}/.well-known/openid-configuration`), fetched on
 * first need and kept; a failed fetch is not kept, so the next request tries again.
 */
export class OpenIdDiscovery {
  private cached: { metadata: OpenIdMetadata; until: number } | undefined;
  private pending: Promise<OpenIdMetadata> | undefined;

  constructor(private readonly authority: URL) {}

  get(): Promise<OpenIdMetadata> {
    if (this.cached && this.cached.until > Date.now()) return Promise.resolve(this.cached.metadata);
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetch(): Promise<OpenIdMetadata> {
    const base = this.authority.href.replace(/\/+$/, "");
    let response: Response;
    try {
      response = await fetch(`${base}/.well-known/openid-configuration`, {
        signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
        redirect: "error",
      });
    } catch (error) {
      throw new AuthorityUnavailable(`discovery failed: ${(error as Error).name}`);
    }
    if (!response.ok) throw new AuthorityUnavailable(`discovery answered ${response.status}`);
    const metadata = parseMetadata(await response.json().catch(() => null), this.authority);
    this.cached = { metadata, until: Date.now() + DISCOVERY_TTL_MS };
    return metadata;
  }
}
