import {
  BlobServiceClient,
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import { DEV_ACCOUNT, DEV_ACCOUNT_KEY } from "./azurite";

/** The Azurite container `npm start` offers for dead letters. */
export const LOCAL_DEAD_LETTER_CONTAINER = "dead-letters";

/** A dead-letter secret: the Azurite container (made if missing) with a year's SAS of the dev key. */
export async function localDeadLetterSasUrl(blobEndpoint: string, container: string): Promise<string> {
  const credential = new StorageSharedKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY);
  const containerClient = new BlobServiceClient(blobEndpoint, credential).getContainerClient(container);
  await containerClient.createIfNotExists();
  const sas = generateBlobSASQueryParameters(
    {
      containerName: container,
      permissions: ContainerSASPermissions.parse("racwl"),
      expiresOn: new Date(Date.now() + 365 * 86_400_000),
    },
    credential,
  );
  return `${containerClient.url}?${sas.toString()}`;
}
