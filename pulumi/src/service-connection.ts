import { DefaultAzureCredential } from "@azure/identity";
import type * as pulumi from "@pulumi/pulumi";
import type { ApiVersions } from "../../client/client-options";
import { staticTokenCredential } from "../../client/static-token-credential";
import { TwinServiceClient } from "../../client/twin-service-client";

/**
 * Where a provider finds the service and how it proves who calls. This file runs inside the dynamic
 * provider, so it reads its sources when a method runs and keeps nothing open: Pulumi serializes
 * the provider, and whatever it closed over would be serialized with it.
 */
export const CONFIG_NAMESPACE = "twin-resource-service";

export const ENVIRONMENT = {
  endpoint: "TWIN_SERVICE_ENDPOINT",
  key: "TWIN_SERVICE_KEY",
  token: "TWIN_SERVICE_TOKEN",
  scope: "TWIN_SERVICE_SCOPE",
  subscriptionId: "TWIN_SERVICE_SUBSCRIPTION_ID",
} as const;

/** Per-resource overrides, carried as (secret) inputs; absent, the stack config or the environment. */
export interface ServiceConnectionInputs {
  serviceEndpoint?: string;
  serviceKey?: string;
}

/** What the stack config (or the environment) holds. */
export interface ConfiguredConnection {
  endpoint?: string;
  key?: string;
  /** An access token for the service, used as it is (it is not refreshed). */
  token?: string;
  /** What DefaultAzureCredential asks tokens for: `api://<the service's client id>/.default`. */
  scope?: string;
  subscriptionId?: string;
}

const CONFIG_NAMES = ["endpoint", "key", "token", "scope", "subscriptionId"] as const;

/** The connection a lookup of named values holds: the stack config's, or the environment's. */
function connectionFrom(value: (name: keyof typeof ENVIRONMENT) => string | undefined): ConfiguredConnection {
  const connection: ConfiguredConnection = {};
  for (const name of CONFIG_NAMES) {
    const found = value(name);
    if (found !== undefined && found !== "") connection[name] = found;
  }
  return connection;
}

export function readConfiguredConnection(config: pulumi.dynamic.Config): ConfiguredConnection {
  return connectionFrom((name) => config.get(`${CONFIG_NAMESPACE}:${name}`));
}

/** How calls are authenticated, from the first source that names a way. */
type Authentication =
  | { key: string }
  | { credential: ReturnType<typeof staticTokenCredential>; credentialScopes: string };

/** The scope a static token is sent under: the credential answers its one token whatever is asked. */
const STATIC_TOKEN_SCOPE = "static-token";

function authenticationOf(source: ConfiguredConnection, where: string): Authentication | undefined {
  if (source.key !== undefined && source.token !== undefined) {
    throw new Error(`Both a key and a token are set in ${where}: set one of them.`);
  }
  if (source.key !== undefined) return { key: source.key };
  if (source.token !== undefined) {
    return {
      credential: staticTokenCredential(source.token),
      credentialScopes: source.scope ?? STATIC_TOKEN_SCOPE,
    };
  }
  return undefined;
}

function notConfigured(): Error {
  const c = CONFIG_NAMESPACE;
  return new Error(
    `The twin resource service is not configured: set ${c}:endpoint and ${c}:key ` +
      `(pulumi config set --secret ${c}:key …), or ${c}:token (a secret), or ${c}:scope for a token from ` +
      `the Azure environment (DefaultAzureCredential); or ${ENVIRONMENT.endpoint} with ${ENVIRONMENT.key}, ` +
      `${ENVIRONMENT.token} or ${ENVIRONMENT.scope}; or the resource's serviceEndpoint and serviceKey.`,
  );
}

/**
 * The first of: the resource's key; the stack config's key or token; the environment's key or
 * token; else a token from the usual Azure environment (DefaultAzureCredential: environment
 * variables, workload or managed identity, Azure CLI, …) for the configured scope.
 */
function resolveAuthentication(
  inputs: ServiceConnectionInputs,
  configured: ConfiguredConnection,
  environment: ConfiguredConnection,
): Authentication {
  if (inputs.serviceKey !== undefined) return { key: inputs.serviceKey };
  const found =
    authenticationOf(configured, "the stack config") ?? authenticationOf(environment, "the environment");
  if (found) return found;
  const scope = configured.scope ?? environment.scope;
  if (scope === undefined) throw notConfigured();
  return { credential: new DefaultAzureCredential(), credentialScopes: scope };
}

export interface ClientExtras {
  subscriptionId?: string | undefined;
  apiVersion?: ApiVersions;
}

/** A client for one provider call: the resource's own inputs first, then the stack config, then env. */
export function serviceClient(
  inputs: ServiceConnectionInputs,
  configured: ConfiguredConnection,
  extras: ClientExtras = {},
): TwinServiceClient {
  const environment = connectionFrom((name) => process.env[ENVIRONMENT[name]]);
  const endpoint = inputs.serviceEndpoint ?? configured.endpoint ?? environment.endpoint;
  if (!endpoint) throw notConfigured();
  const authentication = resolveAuthentication(inputs, configured, environment);
  const subscriptionId = extras.subscriptionId ?? configured.subscriptionId ?? environment.subscriptionId;
  return new TwinServiceClient({
    endpoint,
    ...authentication,
    ...(subscriptionId !== undefined && { subscriptionId }),
    ...(extras.apiVersion !== undefined && { apiVersion: extras.apiVersion }),
  });
}

/** The connection inputs to carry into a resource's outputs, so read and delete use the same ones. */
export function connectionOutputs(inputs: ServiceConnectionInputs): ServiceConnectionInputs {
  return {
    ...(inputs.serviceEndpoint !== undefined && { serviceEndpoint: inputs.serviceEndpoint }),
    ...(inputs.serviceKey !== undefined && { serviceKey: inputs.serviceKey }),
  };
}

/** The stack config as the program (not a provider) reads it: for the lookup that runs in the program. */
export function programConfiguredConnection(get: (key: string) => string | undefined): ConfiguredConnection {
  return connectionFrom((name) => get(`${CONFIG_NAMESPACE}:${name}`));
}
