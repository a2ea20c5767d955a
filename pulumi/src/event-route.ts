import * as pulumi from "@pulumi/pulumi";
import { EventRouteProvider } from "./event-route-provider";
import { resourceInputs, type ServiceConnectionArgs } from "./resource-connection";

export interface EventRouteArgs extends ServiceConnectionArgs {
  /** The digital-twins instance's id. Changing it replaces the route. */
  twinsInstanceId: pulumi.Input<string>;
  /**
   * Changing it replaces the route. Absent: `<resource name>-<7 random chars>`, kept across
   * updates, and made anew when a new endpointName replaces the route.
   */
  name?: pulumi.Input<string> | undefined;
  /** An endpoint of the same instance, which must exist (e.g. a QueueEndpoint's `name`). Changing it replaces the route. */
  endpointName: pulumi.Input<string>;
  /** Which events go to the endpoint, in Azure Digital Twins' filter language (`true` for all). Changed in place. */
  filter: pulumi.Input<string>;
}

/** The state to qualify `EventRoute.get`. */
export interface EventRouteState extends ServiceConnectionArgs {
  twinsInstanceId?: pulumi.Input<string> | undefined;
  name?: pulumi.Input<string> | undefined;
  endpointName?: pulumi.Input<string> | undefined;
  filter?: pulumi.Input<string> | undefined;
}

/** The outputs that hold credentials: secret in state and in every output. */
export const EVENT_ROUTE_SECRET_OUTPUTS = ["serviceKey"];

const provider = new EventRouteProvider();

/**
 * An event route of a digital-twins instance: the instance's events its filter lets through go to
 * one of the instance's endpoints. Its id, and its import identifier, is its full resource path
 * (`{twinsInstanceId}/eventRoutes/{name}`).
 */
export class EventRoute extends pulumi.dynamic.Resource {
  declare readonly twinsInstanceId: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly endpointName: pulumi.Output<string>;
  declare readonly filter: pulumi.Output<string>;

  /** An existing route, read by its id (its full resource path), as `pulumi refresh` reads it. */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    state?: EventRouteState,
    opts?: pulumi.CustomResourceOptions,
  ): EventRoute {
    return new EventRoute(name, state ?? {}, { ...opts, id });
  }

  constructor(name: string, args: EventRouteArgs, opts?: pulumi.CustomResourceOptions);
  constructor(
    name: string,
    argsOrState: EventRouteArgs | EventRouteState,
    opts?: pulumi.CustomResourceOptions,
  );
  constructor(name: string, args: EventRouteArgs | EventRouteState, opts: pulumi.CustomResourceOptions = {}) {
    const own = {
      twinsInstanceId: args.twinsInstanceId,
      name: args.name,
      logicalName: name,
      endpointName: args.endpointName,
      filter: args.filter,
    };
    const inputs = resourceInputs(own, args, opts, EVENT_ROUTE_SECRET_OUTPUTS);
    super(provider, name, inputs.props, inputs.opts, "twin-resource-service", "EventRoute");
  }
}
