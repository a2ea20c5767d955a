import { readFileSync } from "node:fs";
import {
  BlobServiceClient,
  type StoragePipelineOptions,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import { DEV_ACCOUNT, DEV_ACCOUNT_KEY } from "./azurite";
import { LOCAL_DEAD_LETTER_CONTAINER } from "./dead-letter-sas";

/**
 * Storage client options that trust the local certificate. Node reads NODE_EXTRA_CA_CERTS only at
 * start, so a process started without it (the launcher, a test worker) gives the pipeline the
 * certificate instead: the storage client passes options it does not declare on to
 * core-rest-pipeline, whose `tlsOptions` put it on every request's TLS settings.
 */
export function trustLocalCertificate(certFile: string): StoragePipelineOptions {
  return { tlsOptions: { ca: readFileSync(certFile, "utf8") } } as StoragePipelineOptions;
}

/** The HTTPS blob service as its account key sees it, trusting the local certificate. */
export function httpsBlobServiceWithKey(blobTlsEndpoint: string, certFile: string): BlobServiceClient {
  const credential = new StorageSharedKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY);
  return new BlobServiceClient(blobTlsEndpoint, credential, {
    ...trustLocalCertificate(certFile),
    retryOptions: { maxTries: 1 },
  });
}

/** The container `npm start` offers for identity-based dead letters, on the HTTPS blob service. */
export async function ensureHttpsDeadLetterContainer(endpoint: string, certFile: string): Promise<void> {
  await httpsBlobServiceWithKey(endpoint, certFile)
    .getContainerClient(LOCAL_DEAD_LETTER_CONTAINER)
    .createIfNotExists();
}
