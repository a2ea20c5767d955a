import type * as pulumi from "@pulumi/pulumi";
import { autoName } from "../../client/auto-name";
import { parseEventRouteId } from "../../client/resource-paths";
import type { EventRoute, EventRouteInput } from "../../client/types";
import { adoptEventRoute } from "./adopt-existing";
import { diffFields, type FieldRoles } from "./field-diff";
import { connectionOutputs, type ServiceConnectionInputs } from "./service-connection";
import { type TwinsChildInputs, TwinsChildProvider } from "./twins-child-provider";

/** `name` absent: `check` names the route `<logicalName>-<7 random chars>`, and keeps that name. */
export interface EventRouteProviderInputs extends EventRouteInput, TwinsChildInputs {}

export interface EventRouteProviderOutputs extends EventRouteInput, ServiceConnectionInputs {
  twinsInstanceId: string;
  name: string;
}

/**
 * A new endpointName replaces the route (the resource's contract; the service could change it in
 * place), a new filter is written in place. The id is the instance and the name only: a
 * replacement that keeps them deletes first, since its create would find the old route there.
 */
export const EVENT_ROUTE_FIELD_ROLES: FieldRoles = {
  replaces: ["twinsInstanceId", "name", "endpointName"],
  updates: ["filter", "serviceEndpoint", "serviceKey"],
  identity: ["twinsInstanceId", "name"],
};

function body(inputs: EventRouteInput): EventRouteInput {
  return { endpointName: inputs.endpointName, filter: inputs.filter };
}

/** The program's spelling of a name the service keeps in another casing (it matches ignoring case). */
function asKnown(answered: string, known: string | undefined): string {
  return known !== undefined && known.toLowerCase() === answered.toLowerCase() ? known : answered;
}

function routeRef(id: string): { twinsInstanceId: string; name: string } {
  const ref = parseEventRouteId(id);
  if (!ref) throw new Error("The id is not an EventRoute id ({twinsInstanceId}/eventRoutes/{name}).");
  return ref;
}

/**
 * The outputs of a route the service answered for. Names keep the program's casing where the
 * service's matches it ignoring case, so an import or a refresh does not turn a casing into a
 * replacement; the filter is the service's, as written.
 */
function outputs(
  route: EventRoute,
  known: Partial<EventRouteProviderInputs> & ServiceConnectionInputs,
): EventRouteProviderOutputs {
  const ref = routeRef(route.id);
  return {
    twinsInstanceId: asKnown(ref.twinsInstanceId, known.twinsInstanceId),
    name: asKnown(route.name, known.name),
    endpointName: asKnown(route.endpointName, known.endpointName),
    filter: route.filter,
    ...connectionOutputs(known),
  };
}

/**
 * CRUD for EventRoute. The id is the route's full resource path. Its update, like QueueEndpoint's,
 * is a full PUT that must find the route (If-Match: *): the filter (and the connection) in place.
 */
export class EventRouteProvider
  extends TwinsChildProvider<EventRouteInput, EventRoute, EventRouteProviderInputs, EventRouteProviderOutputs>
  implements pulumi.dynamic.ResourceProvider<EventRouteProviderInputs, EventRouteProviderOutputs>
{
  constructor() {
    super({
      collection: (client) => client.eventRoutes,
      ref: routeRef,
      body,
      outputs,
      // The instance as the route's id names it, to compare it ignoring case.
      adopt: (existing, inputs) => adoptEventRoute(existing, routeRef(existing.id).twinsInstanceId, inputs),
    });
  }

  /**
   * Names an unnamed route: the name it already has, the import id's, or a new one. A new
   * endpointName replaces the route, so an unnamed one gets a new name then: the replacement is
   * created beside the old one before that is deleted, and events keep flowing meanwhile.
   */
  async check(olds: Partial<EventRouteProviderInputs>, news: EventRouteProviderInputs) {
    if (news.name !== undefined) return { inputs: news };
    const imported = news.importId === undefined ? undefined : parseEventRouteId(news.importId)?.name;
    const replaced = olds.endpointName !== undefined && olds.endpointName !== news.endpointName;
    const kept = replaced ? undefined : olds.name;
    const name = kept ?? imported ?? autoName(news.logicalName ?? "route");
    return { inputs: { ...news, name } };
  }

  async diff(_id: string, olds: EventRouteProviderOutputs, news: EventRouteProviderInputs) {
    return diffFields({ ...olds }, { ...news }, EVENT_ROUTE_FIELD_ROLES);
  }
}
