import * as path from "node:path";
import type { CosmosClient } from "@azure/cosmos";
import { loadOnFirstRead } from "../common/load-on-first-read";
import type { AppConfig } from "../config";

/**
 * One client per process: it holds the connection pool and the account's routing metadata.
 * The SDK is loaded here, on the first call, not with this module: it takes about 300 ms and
 * 20 MB to load, which the entry points would otherwise pay before the worker reports them loaded.
 */
export function createCosmosClient(config: AppConfig): CosmosClient {
  keyVaultOnFirstUse();
  const cosmos = require("@azure/cosmos") as typeof import("@azure/cosmos");
  return new cosmos.CosmosClient({
    endpoint: config.COSMOS_ENDPOINT,
    // In Azure there is no key (local auth is disabled): the app signs in with its identity.
    ...(config.COSMOS_KEY ? { key: config.COSMOS_KEY } : { aadCredentials: azureCredential() }),
    connectionPolicy: {
      requestTimeout: config.COSMOS_REQUEST_TIMEOUT_MS,
      // The SDK's default is to retry throttled and unreachable requests for up to 30 s; a caller
      // waiting on an HTTP response is better served by a quick 503 with Retry-After.
      retryOptions: { maxRetryAttemptCount: 3, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 5 },
    },
    ...(config.COSMOS_DISABLE_TLS_VERIFICATION && { agent: unverifiedAgent() }),
  });
}

/**
 * For the local Cosmos DB server's self-signed certificate. node:https (and TLS with it) is loaded
 * here rather than with this module: the entry points load this module, and TLS adds about 1 MB to
 * their load; the SDK loads it with the first request anyway.
 */
function unverifiedAgent() {
  const https = require("node:https") as typeof import("node:https");
  return new https.Agent({ keepAlive: true, rejectUnauthorized: false });
}

/**
 * The Cosmos DB SDK requires the Key Vault keys SDK when it loads, for the key resolver of its
 * client-side encryption, which the service does not use: 58 more modules, about 20 ms of CPU and
 * 1.5 MB, on the way to the first answer. Loaded on first read instead (common/load-on-first-read.ts).
 * It is resolved from the Cosmos DB SDK's folder, as the SDK's own require resolves it; if it cannot
 * be (a later SDK without it), the SDK loads as published.
 */
function keyVaultOnFirstUse(): void {
  let filename: string;
  try {
    const cosmosFolder = path.dirname(require.resolve("@azure/cosmos"));
    filename = require.resolve("@azure/keyvault-keys", { paths: [cosmosFolder] });
  } catch {
    return;
  }
  loadOnFirstRead(filename);
}

/** The managed identity (./credentials), whose SDK loads only when there is no key. */
function azureCredential() {
  return (require("./credentials") as typeof import("./credentials")).azureCredential();
}
