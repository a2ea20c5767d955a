import type { AccessToken, GetTokenOptions, TokenCredential } from "@azure/core-auth";
import {
  LOCAL_APP_ID_URI,
  LOCAL_CLIENT_ID,
  LOCAL_TENANT_ID,
  type MintOptions,
  type OpenIdIssuer,
  principalObjectId,
  startOpenIdIssuer,
} from "../../dev/stand-ins/openid-issuer";
import { startTestHost, type TestHost } from "../support/test-host";

/** What a client asks tokens for: the local app registration (the service's AUTH_AUDIENCE). */
export const LOCAL_SCOPE = `${LOCAL_APP_ID_URI}/.default`;

/** The principal the entra host makes Owner at `/` without an assignment. */
export const ADMIN = "admin";

export interface EntraStack {
  issuer: OpenIdIssuer;
  host: TestHost;
  stop(): Promise<void>;
}

/** A local issuer, and a test host that takes its tokens (AUTH_MODE=entra), `admin` its administrator. */
export async function startEntraStack(settings: Record<string, string> = {}): Promise<EntraStack> {
  const issuer = await startOpenIdIssuer({ port: 0 });
  const host = await startTestHost({
    AUTH_MODE: "entra",
    AUTH_AUTHORITY: issuer.authority,
    AUTH_AUDIENCE: `${LOCAL_CLIENT_ID},${LOCAL_APP_ID_URI}`,
    AUTH_ALLOWED_TENANTS: LOCAL_TENANT_ID,
    AUTH_ADMIN_PRINCIPALS: principalObjectId(ADMIN),
    AUTH_CACHE_SECONDS: "0",
    ...settings,
  });
  return {
    issuer,
    host,
    async stop() {
      await host.stop();
      await issuer.close();
    },
  };
}

/** A hand-written TokenCredential minting from the local issuer, recording what it was asked. */
export interface RecordingCredential extends TokenCredential {
  /** The scopes of each getToken call, in order. */
  readonly calls: string[][];
  /** The tokens it handed out, in order. */
  readonly tokens: string[];
}

/**
 * Tokens for principal `name`. `expiresInMs` is the expiry the credential reports (default: the
 * token's own `exp`), which is what the pipeline refreshes by.
 */
export function mintingCredential(
  issuer: OpenIdIssuer,
  name: string,
  options: Omit<MintOptions, "name"> & { expiresInMs?: number } = {},
): RecordingCredential {
  const calls: string[][] = [];
  const tokens: string[] = [];
  const { expiresInMs, ...mint } = options;
  return {
    calls,
    tokens,
    async getToken(scopes: string | string[], _options?: GetTokenOptions): Promise<AccessToken> {
      calls.push(typeof scopes === "string" ? [scopes] : [...scopes]);
      const token = await issuer.mint({ name, ...mint });
      tokens.push(token);
      const lifetimeMs = (mint.lifetimeSeconds ?? 3600) * 1000;
      return { token, expiresOnTimestamp: Date.now() + (expiresInMs ?? lifetimeMs), tokenType: "Bearer" };
    },
  };
}
