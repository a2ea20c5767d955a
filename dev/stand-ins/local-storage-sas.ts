import {
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import {
  AccountSASPermissions,
  AccountSASResourceTypes,
  AccountSASServices,
  generateAccountSASQueryParameters,
  StorageSharedKeyCredential as QueueSharedKeyCredential,
} from "@azure/storage-queue";
import { DEV_ACCOUNT, DEV_ACCOUNT_KEY } from "./azurite";

/**
 * SAS URLs of the local stack's Azurite for `twin --local` (the operator's access, as a SAS would
 * be in Azure): the CLI then never holds an account key. Signed with Azurite's published key and a
 * fixed expiry, so `.local/local.env` reads the same however often it is written.
 */
const EXPIRES_ON = new Date(Date.UTC(2100, 0, 1));

/** The queue service (`http://127.0.0.1:{port}/devstoreaccount1`): peek, receive, send, delete, update. */
export function localQueueServiceSasUrl(queueEndpoint: string): string {
  const sas = generateAccountSASQueryParameters(
    {
      services: AccountSASServices.parse("q").toString(),
      resourceTypes: AccountSASResourceTypes.parse("sco").toString(),
      permissions: AccountSASPermissions.parse("rwdlaup"),
      expiresOn: EXPIRES_ON,
    },
    new QueueSharedKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY),
  );
  return `${queueEndpoint}?${sas.toString()}`;
}

/** A container (`{blob endpoint}/{container}`), to list and read. */
export function localContainerSasUrl(containerUrl: string): string {
  const containerName = new URL(containerUrl).pathname.split("/").filter(Boolean).pop() ?? "";
  const sas = generateBlobSASQueryParameters(
    { containerName, permissions: ContainerSASPermissions.parse("rl"), expiresOn: EXPIRES_ON },
    new StorageSharedKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY),
  );
  return `${containerUrl}?${sas.toString()}`;
}
