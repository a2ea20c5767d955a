import { QueueServiceClient, type StoragePipelineOptions } from "@azure/storage-queue";
import type { AppConfig } from "../config";
import { azureCredential } from "./credentials";

/** The queue service of the host's storage account, by connection string or by managed identity. */
export function createQueueServiceClient(
  config: AppConfig,
  options: StoragePipelineOptions = {},
): QueueServiceClient {
  if (config.AzureWebJobsStorage)
    return QueueServiceClient.fromConnectionString(config.AzureWebJobsStorage, options);
  const url =
    config.AzureWebJobsStorage__queueServiceUri ??
    `https://${config.AzureWebJobsStorage__accountName}.queue.core.windows.net`;
  return new QueueServiceClient(url, azureCredential(), options);
}
