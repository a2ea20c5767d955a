import { AnonymousCredential, ContainerClient, type StoragePipelineOptions } from "@azure/storage-blob";
import { type DeadLetterTarget, deadLetterUrl } from "../endpoints/delivery-endpoint";
import { identityKey } from "../endpoints/managed-identity";
import { type ManagedIdentityCredentials, processCredentials } from "./managed-identity-credentials";

/**
 * A client for an endpoint's dead-letter container: through its SAS URL, or as the endpoint's
 * managed identity. Redirects are not followed (core's redirect policy reads `redirectOptions`,
 * which the storage client passes on but does not declare): the service talks only to the host
 * the URL names, which the allow-list admitted, and a store that answers with a redirect is a
 * fault to report (a bearer token must never follow one elsewhere).
 */
export function deadLetterContainer(
  target: DeadLetterTarget,
  retry: { maxTries: number; tryTimeoutInMs: number },
  credentials: ManagedIdentityCredentials = processCredentials,
) {
  const options: StoragePipelineOptions & { redirectOptions: { maxRetries: number } } = {
    retryOptions: { ...retry, retryDelayInMs: 500 },
    redirectOptions: { maxRetries: 0 },
  };
  return "sasUrl" in target
    ? new ContainerClient(target.sasUrl, new AnonymousCredential(), options)
    : new ContainerClient(target.url, credentials.of(target.identity), options);
}

/** One spelling per container and credential: what the writer keeps its container clients by. */
export function deadLetterTargetKey(target: DeadLetterTarget): string {
  return "sasUrl" in target ? target.sasUrl : `${identityKey(target.identity)}\n${deadLetterUrl(target)}`;
}

/**
 * Which container of which account a dead-letter SAS URL names, as the service's mark binds it
 * (dead-letter-mark.ts): the host name (the account, for `{account}.blob.core…`) and the path (the
 * container; after the account, for the path-style URLs of a local store), lower-cased, without
 * port, query or slashes at either end. So a new SAS for the same container, or the same URL
 * spelled in other letter case, is the same place; a copy in another container or account is not.
 * The path stays as the URL parser leaves it (percent-encoded), so no place holds a line break,
 * which the mark uses to keep its parts apart.
 */
export function deadLetterPlace(sasUrl: string): string {
  const url = new URL(sasUrl);
  return [url.hostname, ...url.pathname.split("/").filter(Boolean)].join("/").toLowerCase();
}
