import type * as pulumi from "@pulumi/pulumi";
import { type ConfiguredConnection, readConfiguredConnection } from "./service-connection";

/**
 * The base of every provider here. Pulumi serializes the provider into the state, so it holds
 * nothing but the stack config that `configure` hands it in the provider process.
 */
export abstract class ConfiguredProvider {
  protected configured: ConfiguredConnection = {};

  async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.configured = readConfiguredConnection(request.config);
  }
}
