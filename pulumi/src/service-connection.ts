import type * as pulumi from "@pulumi/pulumi";
import { TwinServiceClient } from "../../client/twin-service-client";

/**
 * Where a provider finds the service. This file runs inside the dynamic provider, so it reads its
 * sources when a method runs and keeps nothing open: Pulumi serializes the provider, and whatever
 * it closed over would be serialized with it.
 */
export const CONFIG_NAMESPACE = "twin-resource-service";

export const ENVIRONMENT = {
  endpoint: "TWIN_SERVICE_ENDPOINT",
  key: "TWIN_SERVICE_KEY",
  subscriptionId: "TWIN_SERVICE_SUBSCRIPTION_ID",
} as const;

/** Per-resource overrides, carried as (secret) inputs; absent, the stack config or the environment. */
export interface ServiceConnectionInputs {
  serviceEndpoint?: string;
  serviceKey?: string;
}

/** What the stack config handed to the provider's `configure` holds. */
export interface ConfiguredConnection {
  endpoint?: string;
  key?: string;
  subscriptionId?: string;
}

export function readConfiguredConnection(config: pulumi.dynamic.Config): ConfiguredConnection {
  const value = (name: string) => config.get(`${CONFIG_NAMESPACE}:${name}`);
  const endpoint = value("endpoint");
  const key = value("key");
  const subscriptionId = value("subscriptionId");
  return {
    ...(endpoint !== undefined && { endpoint }),
    ...(key !== undefined && { key }),
    ...(subscriptionId !== undefined && { subscriptionId }),
  };
}

/** A client for one provider call: the resource's own inputs first, then the stack config, then env. */
export function serviceClient(
  inputs: ServiceConnectionInputs,
  configured: ConfiguredConnection,
): TwinServiceClient {
  const endpoint = inputs.serviceEndpoint ?? configured.endpoint ?? process.env[ENVIRONMENT.endpoint];
  const key = inputs.serviceKey ?? configured.key ?? process.env[ENVIRONMENT.key];
  if (!endpoint || !key) {
    throw new Error(
      `The twin resource service is not configured: set ${CONFIG_NAMESPACE}:endpoint and ${CONFIG_NAMESPACE}:key ` +
        `(pulumi config set --secret ${CONFIG_NAMESPACE}:key …), or ${ENVIRONMENT.endpoint} and ${ENVIRONMENT.key}, ` +
        "or the resource's serviceEndpoint and serviceKey.",
    );
  }
  const subscriptionId = configured.subscriptionId ?? process.env[ENVIRONMENT.subscriptionId];
  return new TwinServiceClient({ endpoint, key, ...(subscriptionId !== undefined && { subscriptionId }) });
}

/** The connection inputs to carry into a resource's outputs, so read and delete use the same ones. */
export function connectionOutputs(inputs: ServiceConnectionInputs): ServiceConnectionInputs {
  return {
    ...(inputs.serviceEndpoint !== undefined && { serviceEndpoint: inputs.serviceEndpoint }),
    ...(inputs.serviceKey !== undefined && { serviceKey: inputs.serviceKey }),
  };
}
