import type { QueueServiceClient, StoragePipelineOptions } from "@azure/storage-queue";
import type { AppConfig } from "../config";

/**
 * The queue service of the host's storage account, by connection string or by managed identity.
 * The SDK (and the identity SDK, without a connection string) loads on the first call, not with
 * this module: an instance that has not ingested or delivered yet does not pay for it.
 */
export function createQueueServiceClient(
  config: AppConfig,
  options: StoragePipelineOptions = {},
): QueueServiceClient {
  const queues = require("@azure/storage-queue") as typeof import("@azure/storage-queue");
  if (config.AzureWebJobsStorage)
    return queues.QueueServiceClient.fromConnectionString(config.AzureWebJobsStorage, options);
  const url =
    config.AzureWebJobsStorage__queueServiceUri ??
    `https://${config.AzureWebJobsStorage__accountName}.queue.core.windows.net`;
  const { azureCredential } = require("./credentials") as typeof import("./credentials");
  return new queues.QueueServiceClient(url, azureCredential(), options);
}
