import type { AccessToken, GetTokenOptions, TokenCredential } from "@azure/core-auth";
import { identityKey, type ManagedIdentity } from "../endpoints/managed-identity";
import { storageDeadline } from "../store/storage-deadline";

/** The default of IDENTITY_TOKEN_TIMEOUT_MS: the identity endpoint is on the instance, so seconds are plenty. */
export const TOKEN_TIMEOUT_MS = 10_000;

/** A token request the identity endpoint did not answer in time (identity-faults.ts says so). */
export class TokenTimeoutError extends Error {
  override readonly name = "TokenTimeoutError";
}

/**
 * One credential per managed identity for the life of the process, shared by every Service Bus
 * client and blob container that uses the identity: a credential caches its token until shortly
 * before it expires, so one per client would ask the identity endpoint again for each.
 * `@azure/identity` is loaded on first use: deployments with KeyBased endpoints only never load it.
 *
 * Every token request ends within the token timeout (IDENTITY_TOKEN_TIMEOUT_MS). An identity
 * endpoint that takes the connection and never answers would otherwise hold it for minutes:
 * `@azure/identity` takes an abort signal but its managed identity request does not heed it, and
 * whatever waits for the token (a Service Bus client's authorization, a dead-letter write) waits
 * with it. A request past the timeout is abandoned, so the next one asks the endpoint afresh.
 */
export class ManagedIdentityCredentials {
  private readonly credentials = new Map<string, TokenCredential>();

  constructor(
    private readonly create: (identity: ManagedIdentity) => TokenCredential = managedIdentityCredential,
    private tokenTimeoutMs = TOKEN_TIMEOUT_MS,
  ) {}

  /** The timeout of the token requests from now on (services.ts sets the deployment's). */
  setTokenTimeout(ms: number): void {
    this.tokenTimeoutMs = ms;
  }

  of(identity: ManagedIdentity | undefined): TokenCredential {
    const key = identityKey(identity);
    let credential = this.credentials.get(key);
    if (!credential) {
      const inner = this.create(identity ?? { type: "SystemAssigned" });
      credential = { getToken: (scopes, options) => this.bounded(inner, scopes, options) };
      this.credentials.set(key, credential);
    }
    return credential;
  }

  private bounded(
    inner: TokenCredential,
    scopes: string | string[],
    options: GetTokenOptions | undefined,
  ): Promise<AccessToken | null> {
    const timeoutMs = this.tokenTimeoutMs;
    const deadline = storageDeadline(timeoutMs);
    const caller = options?.abortSignal;
    if (caller?.aborted) return Promise.reject(cancelledError());
    return new Promise((resolve, reject) => {
      const settle = () => {
        deadline.removeEventListener("abort", timedOut);
        caller?.removeEventListener("abort", cancelled);
      };
      const timedOut = () => {
        settle();
        reject(new TokenTimeoutError(`the identity endpoint gave no token within ${timeoutMs} ms`));
      };
      const cancelled = () => {
        settle();
        reject(cancelledError());
      };
      deadline.addEventListener("abort", timedOut, { once: true });
      caller?.addEventListener("abort", cancelled, { once: true });
      inner.getToken(scopes, { ...options, abortSignal: deadline }).then(
        (token) => {
          settle();
          resolve(token);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }
}

/** What a token request its caller cancelled rejects with, as `@azure/core-auth` callers expect. */
function cancelledError(): Error {
  return Object.assign(new Error("The token request was cancelled."), { name: "AbortError" });
}

/**
 * The App Service identity endpoint's credential (Functions on Flex Consumption): the
 * system-assigned identity, or a user-assigned one by its resource id, which the endpoint takes
 * as `mi_res_id`. Locally the stand-in behind IDENTITY_ENDPOINT answers the same protocol.
 */
function managedIdentityCredential(identity: ManagedIdentity): TokenCredential {
  const { ManagedIdentityCredential } = require("@azure/identity") as typeof import("@azure/identity");
  return identity.type === "UserAssigned"
    ? new ManagedIdentityCredential({ resourceId: identity.userAssignedIdentity })
    : new ManagedIdentityCredential();
}

/** The process's credentials: the sender pool, the dead-letter writer and redelivery share them. */
export const processCredentials = new ManagedIdentityCredentials();
