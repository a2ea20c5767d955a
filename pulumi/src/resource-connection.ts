import * as pulumi from "@pulumi/pulumi";

/**
 * Per-resource service connection. Usually left out: the provider then takes the stack config
 * (`twin-resource-service:endpoint`, secret `twin-resource-service:key`) or the environment
 * (`TWIN_SERVICE_ENDPOINT`, `TWIN_SERVICE_KEY`) when it runs. Given here, both are kept in the
 * resource's state (the key as a secret), so refresh and delete reach the same service.
 */
export interface ServiceConnectionArgs {
  serviceEndpoint?: pulumi.Input<string> | undefined;
  serviceKey?: pulumi.Input<string> | undefined;
}

/** The connection as resource inputs; the key is made secret whatever the caller passed. */
function connectionInputs(args: ServiceConnectionArgs): Record<string, pulumi.Input<string> | undefined> {
  return {
    serviceEndpoint: args.serviceEndpoint,
    serviceKey: secretOrUndefined(args.serviceKey),
  };
}

export function secretOrUndefined(
  value: pulumi.Input<string> | undefined,
): pulumi.Output<string> | undefined {
  return value === undefined ? undefined : pulumi.secret(value);
}

/**
 * Dynamic providers cannot serve the engine's import step (it reads them without their serialized
 * code: pulumi/pulumi#16175), so the `import` option is carried as an `importId` input instead, and
 * the provider's create adopts that resource, failing as Pulumi's import does when it differs.
 */
function importAsInput(opts: pulumi.CustomResourceOptions): {
  opts: pulumi.CustomResourceOptions;
  importId: pulumi.Input<string> | undefined;
} {
  const { import: importId, ...rest } = opts;
  return { opts: rest, importId };
}

/**
 * The props and options a resource here hands `pulumi.dynamic.Resource`: its own inputs, then the
 * connection and the `import` option as inputs; the outputs that hold credentials made secret.
 */
export function resourceInputs(
  own: pulumi.Inputs,
  args: ServiceConnectionArgs,
  opts: pulumi.CustomResourceOptions,
  secretOutputs: string[],
): { props: pulumi.Inputs; opts: pulumi.CustomResourceOptions } {
  const imported = importAsInput(opts);
  return {
    props: { ...own, ...connectionInputs(args), importId: imported.importId },
    opts: pulumi.mergeOptions(imported.opts, { additionalSecretOutputs: secretOutputs }),
  };
}
