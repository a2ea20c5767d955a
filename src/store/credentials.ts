import { DefaultAzureCredential, type TokenCredential } from "@azure/identity";

let shared: TokenCredential | undefined;

/**
 * The app's managed identity in Azure (DefaultAzureCredential also finds a developer's az/azd
 * login). Made on first use and shared: local runs with keys never create it.
 */
export function azureCredential(): TokenCredential {
  shared ??= new DefaultAzureCredential();
  return shared;
}
