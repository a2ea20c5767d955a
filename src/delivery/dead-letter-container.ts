import { AnonymousCredential, ContainerClient, type StoragePipelineOptions } from "@azure/storage-blob";

/**
 * A client for an endpoint's dead-letter container, through its SAS URL. Redirects are not
 * followed (core's redirect policy reads `redirectOptions`, which the storage client passes on
 * but does not declare): the service talks only to the host the URL names, which the allow-list
 * admitted, and a store that answers with a redirect is a fault to report.
 */
export function deadLetterContainer(sasUrl: string, retry: { maxTries: number; tryTimeoutInMs: number }) {
  const options: StoragePipelineOptions & { redirectOptions: { maxRetries: number } } = {
    retryOptions: { ...retry, retryDelayInMs: 500 },
    redirectOptions: { maxRetries: 0 },
  };
  return new ContainerClient(sasUrl, new AnonymousCredential(), options);
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
