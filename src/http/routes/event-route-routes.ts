import { RESOURCE_API_VERSIONS } from "../../common/api-versions";
import { EVENT_ROUTE_PATH } from "../../common/arm-path";
import {
  ENDPOINT_READ_ACTION,
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
  // Moving or deleting it changes what the endpoint it named gets (every event, once no route
  // names it): the service asks the same of that endpoint, as stored when it writes.
  linked: {
    action: ENDPOINT_READ_ACTION,
    id: (path, body) => endpointId(twinsInstanceId(path), body.endpointName),
    stored: {
      put: "at the endpoint the route named before, when the write moves it",
      delete: "the endpoint the route names",
    },
  },
});

/** The operations of the eventRoutes rows of the route table (replaced whole: no PATCH). */
export const eventRouteOperations = {
  list: listRoute(eventRoutes),
  get: getRoute(eventRoutes),
  put: putRoute(eventRoutes),
  delete: deleteRoute(eventRoutes),
} satisfies Record<string, RouteOperation>;
