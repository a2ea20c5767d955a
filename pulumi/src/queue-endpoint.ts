import * as pulumi from "@pulumi/pulumi";
import type { EndpointAuthenticationType, EndpointIdentity } from "../../client/types";
import { QueueEndpointProvider } from "./queue-endpoint-provider";
import { resourceInputs, type ServiceConnectionArgs, secretOrUndefined } from "./resource-connection";

/**
 * The managed identity an identity-based endpoint uses, as an input: the id may be another
 * resource's output (an `azure-native` `UserAssignedIdentity`'s `id`, say).
 */
export type EndpointIdentityArgs =
  | { type: "SystemAssigned" }
  | { type: "UserAssigned"; userAssignedIdentity: pulumi.Input<string> };

/** What both kinds take. */
interface QueueEndpointCommonArgs extends ServiceConnectionArgs {
  /** The digital-twins instance's id. Changing it replaces the endpoint. */
  twinsInstanceId: pulumi.Input<string>;
  /** Changing it replaces the endpoint. Absent: `<resource name>-<7 random chars>`, kept across updates. */
  name?: pulumi.Input<string> | undefined;
}

/** A key-based endpoint: its connection strings and SAS URL are its credentials, kept secret. */
export interface KeyBasedQueueEndpointArgs extends QueueEndpointCommonArgs {
  /** `KeyBased`, the default. Changing it replaces the endpoint (deleted first; the name stays). */
  authenticationType?: pulumi.Input<"KeyBased"> | undefined;
  /** Secret. A topic rule's connection string with at least send permission. */
  queuePrimaryConnectionString: pulumi.Input<string>;
  /** Secret. The same kind, for when the primary fails. */
  queueSecondaryConnectionString: pulumi.Input<string>;
  /** Secret. `{storage endpoint}/{container}?{SAS token}`, where undeliverable events go. */
  deadLetterStorageSecret?: pulumi.Input<string> | undefined;
  endpointUri?: never;
  entityPath?: never;
  deadLetterUri?: never;
  identity?: never;
}

/**
 * An identity-based endpoint: the service sends and dead-letters with one of its managed
 * identities, which the topic's and the container's owners grant roles to. Nothing is secret.
 */
export interface IdentityBasedQueueEndpointArgs extends QueueEndpointCommonArgs {
  /** Changing it replaces the endpoint (deleted first; the name stays). */
  authenticationType: pulumi.Input<"IdentityBased">;
  /** `sb://<namespace host>/`. Changed in place. */
  endpointUri: pulumi.Input<string>;
  /** The topic. Changed in place. */
  entityPath: pulumi.Input<string>;
  /** `https://<account>.blob.core.windows.net/<container>`, no query. Changed in place; absent removes it. */
  deadLetterUri?: pulumi.Input<string> | undefined;
  /**
   * The service's identity to use: `{ type: "SystemAssigned" }` (also what absent means) or
   * `{ type: "UserAssigned", userAssignedIdentity: "<ARM id>" }`, one attached to the service for
   * endpoints. Changed in place.
   */
  identity?: pulumi.Input<EndpointIdentityArgs> | undefined;
  queuePrimaryConnectionString?: never;
  queueSecondaryConnectionString?: never;
  deadLetterStorageSecret?: never;
}

/** A QueueEndpoint of either kind; `authenticationType` absent is `KeyBased`, as before. */
export type QueueEndpointArgs = KeyBasedQueueEndpointArgs | IdentityBasedQueueEndpointArgs;

/** The state to qualify `QueueEndpoint.get`. */
export interface QueueEndpointState extends ServiceConnectionArgs {
  twinsInstanceId?: pulumi.Input<string> | undefined;
  name?: pulumi.Input<string> | undefined;
  authenticationType?: pulumi.Input<EndpointAuthenticationType> | undefined;
  queuePrimaryConnectionString?: pulumi.Input<string> | undefined;
  queueSecondaryConnectionString?: pulumi.Input<string> | undefined;
  deadLetterStorageSecret?: pulumi.Input<string> | undefined;
  endpointUri?: pulumi.Input<string> | undefined;
  entityPath?: pulumi.Input<string> | undefined;
  deadLetterUri?: pulumi.Input<string> | undefined;
  identity?: pulumi.Input<EndpointIdentityArgs> | undefined;
}

/** The outputs that hold credentials: secret in state and in every output (a key-based endpoint's only). */
export const QUEUE_ENDPOINT_SECRET_OUTPUTS = [
  "queuePrimaryConnectionString",
  "queueSecondaryConnectionString",
  "deadLetterStorageSecret",
  "serviceKey",
];

const provider = new QueueEndpointProvider();

/**
 * An endpoint of a digital-twins instance that delivers the instance's events to a topic, with
 * connection strings (`KeyBased`, the default) or a managed identity of the service
 * (`IdentityBased`). Its id, and its import identifier, is its full resource path
 * (`{twinsInstanceId}/endpoints/{name}`).
 */
export class QueueEndpoint extends pulumi.dynamic.Resource {
  declare readonly twinsInstanceId: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  /** Always set in the outputs: `KeyBased` for an endpoint whose program left it out. */
  declare readonly authenticationType: pulumi.Output<EndpointAuthenticationType>;
  /** KeyBased only (undefined for IdentityBased). */
  declare readonly queuePrimaryConnectionString: pulumi.Output<string | undefined>;
  declare readonly queueSecondaryConnectionString: pulumi.Output<string | undefined>;
  declare readonly deadLetterStorageSecret: pulumi.Output<string | undefined>;
  /** IdentityBased only (undefined for KeyBased). */
  declare readonly endpointUri: pulumi.Output<string | undefined>;
  declare readonly entityPath: pulumi.Output<string | undefined>;
  declare readonly deadLetterUri: pulumi.Output<string | undefined>;
  declare readonly identity: pulumi.Output<EndpointIdentity | undefined>;

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
      authenticationType: args.authenticationType,
      queuePrimaryConnectionString: secretOrUndefined(args.queuePrimaryConnectionString),
      queueSecondaryConnectionString: secretOrUndefined(args.queueSecondaryConnectionString),
      deadLetterStorageSecret: secretOrUndefined(args.deadLetterStorageSecret),
      // Nothing of an identity-based endpoint is a secret.
      endpointUri: args.endpointUri,
      entityPath: args.entityPath,
      deadLetterUri: args.deadLetterUri,
      identity: args.identity,
    };
    const inputs = resourceInputs(own, args, opts, QUEUE_ENDPOINT_SECRET_OUTPUTS);
    super(provider, name, inputs.props, inputs.opts, "twin-resource-service", "QueueEndpoint");
  }
}
