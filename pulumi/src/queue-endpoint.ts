import * as pulumi from "@pulumi/pulumi";
import { QueueEndpointProvider } from "./queue-endpoint-provider";
import { resourceInputs, type ServiceConnectionArgs, secretOrUndefined } from "./resource-connection";

export interface QueueEndpointArgs extends ServiceConnectionArgs {
  /** The digital-twins instance's id. Changing it replaces the endpoint. */
  twinsInstanceId: pulumi.Input<string>;
  /** Changing it replaces the endpoint. Absent: `<resource name>-<7 random chars>`, kept across updates. */
  name?: pulumi.Input<string> | undefined;
  /** Secret. A topic rule's connection string with at least send permission. */
  queuePrimaryConnectionString: pulumi.Input<string>;
  /** Secret. The same kind, for when the primary fails. */
  queueSecondaryConnectionString: pulumi.Input<string>;
  /** Secret. `{storage endpoint}/{container}?{SAS token}`, where undeliverable events go. */
  deadLetterStorageSecret?: pulumi.Input<string> | undefined;
}

/** The state to qualify `QueueEndpoint.get`. */
export interface QueueEndpointState extends ServiceConnectionArgs {
  twinsInstanceId?: pulumi.Input<string> | undefined;
  name?: pulumi.Input<string> | undefined;
  queuePrimaryConnectionString?: pulumi.Input<string> | undefined;
  queueSecondaryConnectionString?: pulumi.Input<string> | undefined;
  deadLetterStorageSecret?: pulumi.Input<string> | undefined;
}

/** The outputs that hold credentials: secret in state and in every output. */
export const QUEUE_ENDPOINT_SECRET_OUTPUTS = [
  "queuePrimaryConnectionString",
  "queueSecondaryConnectionString",
  "deadLetterStorageSecret",
  "serviceKey",
];

const provider = new QueueEndpointProvider();

/**
 * An endpoint of a digital-twins instance that delivers the instance's events to a topic. Its id,
 * and its import identifier, is its full resource path (`{twinsInstanceId}/endpoints/{name}`).
 */
export class QueueEndpoint extends pulumi.dynamic.Resource {
  declare readonly twinsInstanceId: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly queuePrimaryConnectionString: pulumi.Output<string>;
  declare readonly queueSecondaryConnectionString: pulumi.Output<string>;
  declare readonly deadLetterStorageSecret: pulumi.Output<string | undefined>;

  /** An existing endpoint, read by its id (its full resource path), as `pulumi refresh` reads it. */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    state?: QueueEndpointState,
    opts?: pulumi.CustomResourceOptions,
  ): QueueEndpoint {
    return new QueueEndpoint(name, state ?? {}, { ...opts, id });
  }

  constructor(name: string, args: QueueEndpointArgs, opts?: pulumi.CustomResourceOptions);
  constructor(
    name: string,
    argsOrState: QueueEndpointArgs | QueueEndpointState,
    opts?: pulumi.CustomResourceOptions,
  );
  constructor(
    name: string,
    args: QueueEndpointArgs | QueueEndpointState,
    opts: pulumi.CustomResourceOptions = {},
  ) {
    const own = {
      twinsInstanceId: args.twinsInstanceId,
      name: args.name,
      logicalName: name,
      queuePrimaryConnectionString: secretOrUndefined(args.queuePrimaryConnectionString),
      queueSecondaryConnectionString: secretOrUndefined(args.queueSecondaryConnectionString),
      deadLetterStorageSecret: secretOrUndefined(args.deadLetterStorageSecret),
    };
    const inputs = resourceInputs(own, args, opts, QUEUE_ENDPOINT_SECRET_OUTPUTS);
    super(provider, name, inputs.props, inputs.opts, "twin-resource-service", "QueueEndpoint");
  }
}
