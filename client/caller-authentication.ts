import { isTokenCredential, type TokenCredential } from "@azure/core-auth";
import { plainHttpRefusal } from "./bearer-policy";
import type { CredentialAuthentication, KeyAuthentication } from "./client-options";
import { isLoopbackUrl } from "./loopback";

/** How the client's calls prove who makes them, once the options are checked. */
export type CallerAuthentication =
  | { kind: "key"; key: string }
  | { kind: "credential"; credential: TokenCredential; scopes: string[] };

function scopesOf(value: unknown): string[] {
  const scopes = typeof value === "string" ? [value] : value;
  if (
    !Array.isArray(scopes) ||
    scopes.length === 0 ||
    !scopes.every((scope) => typeof scope === "string" && scope.trim() !== "")
  ) {
    throw new TypeError(
      "credentialScopes is required with a credential: the service's application, e.g. 'api://<its client id>/.default'",
    );
  }
  return scopes.map((scope: string) => scope.trim());
}

/**
 * The key or the credential of the options (exactly one), checked before any request: a token is
 * never to leave the machine over plain http, so a credential with an http endpoint that is not
 * loopback is refused here, before the credential is ever asked.
 */
export function callerAuthentication(
  options: KeyAuthentication | CredentialAuthentication,
  endpoint: URL,
): CallerAuthentication {
  const { key, credential } = options as { key?: unknown; credential?: unknown };
  if (key !== undefined && credential !== undefined) {
    throw new TypeError("Give key or credential, not both");
  }
  if (credential === undefined) {
    if (typeof key !== "string" || key === "") {
      throw new TypeError(
        "key must be a non-empty string (a function key, or the master key), or give a credential",
      );
    }
    return { kind: "key", key };
  }
  if (!isTokenCredential(credential)) {
    throw new TypeError(
      "credential must be a TokenCredential (an object with getToken), e.g. DefaultAzureCredential",
    );
  }
  const scopes = scopesOf(options.credentialScopes);
  if (endpoint.protocol === "http:" && !isLoopbackUrl(endpoint)) throw plainHttpRefusal(endpoint);
  return { kind: "credential", credential, scopes };
}
