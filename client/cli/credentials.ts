import type { TokenCredential } from "@azure/core-auth";
import type { TwinServiceClientOptions } from "../client-options";
import { isLoopbackUrl } from "../loopback";
import { staticTokenCredential } from "../static-token-credential";
import { UsageError } from "./args";
import { requireLocalEnv } from "./local-env";

/**
 * Who `twin` calls as, the way Azure tools find it: a Functions key when given one (`--key`,
 * TWIN_FUNCTION_KEY), the local stack's own when told `--local`, else DefaultAzureCredential for
 * the service's application. Keys and tokens go to the client only: never into output or errors.
 */

/** The local stack's app registration (dev/stand-ins/openid/principals.ts's LOCAL_APP_ID_URI). */
export const LOCAL_APP_ID_URI = "api://00000000-0000-4000-8000-0000000a0d1e";

/** No credential could be had, or the service refused the one given (exit code 3). */
export class AuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthenticationError";
  }
}

/**
 * The scope of a token when none is given: the deployment's app registration from the
 * environment (AUTH_APP_ID_URI, else SERVICE_API_CLIENT_ID or AUTH_CLIENT_ID), else, for a
 * loopback base URL, the local stack's.
 */
export function defaultScope(env: NodeJS.ProcessEnv, baseUrl: URL): string | undefined {
  const set = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const appIdUri = set("AUTH_APP_ID_URI");
  if (appIdUri) return `${appIdUri.replace(/\/+$/, "")}/.default`;
  const clientId = set("SERVICE_API_CLIENT_ID") ?? set("AUTH_CLIENT_ID");
  if (clientId) return `api://${clientId}/.default`;
  return isLoopbackUrl(baseUrl) ? `${LOCAL_APP_ID_URI}/.default` : undefined;
}

export interface ConnectionRequest {
  baseUrl?: string | undefined;
  local: boolean;
  envFile?: string | undefined;
  key?: string | undefined;
  scope?: string | undefined;
  /** The call needs the master key under AUTH_MODE=keys (role assignment writes): --local takes MASTER_KEY. */
  masterKey: boolean;
}

export interface Connection {
  options: TwinServiceClientOptions;
  /** What must never be printed: the key or the token, when known. */
  secrets: string[];
}

function parseBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--base-url is not a URL: ${raw}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UsageError(`--base-url must be an https URL (or http on loopback): ${raw}`);
  }
  return url;
}

/** DefaultAzureCredential, loaded only when it is used (a key needs none of @azure/identity). */
async function defaultAzureCredential(): Promise<TokenCredential> {
  const { DefaultAzureCredential } = await import("@azure/identity");
  return new DefaultAzureCredential();
}

/** The client's options for the command line and the environment. */
export async function resolveConnection(
  request: ConnectionRequest,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<Connection> {
  let local: Record<string, string> | undefined;
  let localFile: string | undefined;
  if (request.local) ({ file: localFile, values: local } = requireLocalEnv(cwd, request.envFile));
  const rawBaseUrl = request.baseUrl ?? env.TWIN_BASE_URL?.trim() ?? local?.BASE_URL;
  if (rawBaseUrl === undefined || rawBaseUrl === "") {
    throw new UsageError("--base-url is required (or TWIN_BASE_URL, or --local for the local stack).");
  }
  const baseUrl = parseBaseUrl(rawBaseUrl);
  const endpoint = baseUrl.href.replace(/\/+$/, "");

  const explicitKey = request.key ?? (env.TWIN_FUNCTION_KEY?.trim() || undefined);
  if (explicitKey !== undefined) {
    return { options: { endpoint, key: explicitKey }, secrets: [explicitKey] };
  }
  if (local !== undefined) {
    if (local.STACK_AUTH_MODE === "keys") {
      const key = request.masterKey ? local.MASTER_KEY : local.FUNCTION_KEY;
      if (!key) throw new AuthenticationError(`--local: ${localFile} holds no key.`);
      return { options: { endpoint, key }, secrets: [key] };
    }
    const token = local.TOKEN;
    if (!token) {
      throw new AuthenticationError(
        `--local: ${localFile} holds no TOKEN; \`npm run token\` writes a new one for the local developer.`,
      );
    }
    const scope = request.scope ?? `${LOCAL_APP_ID_URI}/.default`;
    return {
      options: { endpoint, credential: staticTokenCredential(token), credentialScopes: scope },
      secrets: [token],
    };
  }
  const scope = request.scope ?? defaultScope(env, baseUrl);
  if (scope === undefined) {
    throw new UsageError(
      "--scope is needed for a token: api://<the service's application (client) id>/.default, " +
        "or set AUTH_APP_ID_URI, SERVICE_API_CLIENT_ID or AUTH_CLIENT_ID (or give --key for a Functions key).",
    );
  }
  return {
    options: { endpoint, credential: await defaultAzureCredential(), credentialScopes: scope },
    secrets: [],
  };
}

/** Whether an error is @azure/identity's: no credential could be had or it refused to give a token. */
export function isCredentialFailure(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return (
    name === "CredentialUnavailableError" ||
    name === "AuthenticationRequiredError" ||
    name === "AggregateAuthenticationError" ||
    name === "AuthenticationError"
  );
}
