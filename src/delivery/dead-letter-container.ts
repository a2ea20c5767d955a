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
