import { RESOURCE_API_VERSIONS } from "../../common/api-versions";
import { EVENT_ROUTE_PATH } from "../../common/arm-path";
import {
  endpointId,
  eventRoutePathSchema,
  instancePathSchema,
  twinsInstanceId,
} from "../../endpoints/endpoint-path";
import { eventRouteExamples } from "../../event-routes/event-route-examples";
import { eventRoutePutSchema, eventRouteSchema } from "../../event-routes/event-route-schema";
import { deleteRoute, getRoute, listRoute, putRoute, resourceSpec } from "../resource-operations";
import type { RouteOperation } from "../route";

const eventRoutes = resourceSpec({
  noun: "event route",
  tag: "EventRoute",
  collectionRoute: EVENT_ROUTE_PATH.collection.route,
  apiVersions: RESOURCE_API_VERSIONS,
  collectionPath: instancePathSchema,
  itemPath: eventRoutePathSchema,
  putBody: eventRoutePutSchema,
  resourceSchema: eventRouteSchema,
  examples: eventRouteExamples,
  service: (services) => services.eventRoutes,
  // A route decides what its endpoint gets, and a 400 would tell whether the endpoint exists.
  linked: {
    action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read",
    id: (path, body) => endpointId(twinsInstanceId(path), body.endpointName),
  },
});

/** The operations of the eventRoutes rows of the route table (replaced whole: no PATCH). */
export const eventRouteOperations = {
  list: listRoute(eventRoutes),
  get: getRoute(eventRoutes),
  put: putRoute(eventRoutes),
  delete: deleteRoute(eventRoutes),
} satisfies Record<string, RouteOperation>;
