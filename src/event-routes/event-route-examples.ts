import { EXAMPLE_SYSTEM_DATA } from "../common/system-data";
import type { EventRoute, EventRoutePutInput } from "./event-route-schema";

/** The examples of the API description; a test validates each against its schema. */
const instance =
  "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/twins-rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/factory-twins";
const filter = "type = 'Microsoft.DigitalTwins.Twin.Update' AND $body.temperature > 30";

export const eventRouteExamples: { put: EventRoutePutInput; resource: EventRoute } = {
  put: { endpointName: "orders", filter },
  resource: {
    id: `${instance}/eventRoutes/hot-machines`,
    name: "hot-machines",
    endpointName: "orders",
    filter,
    systemData: EXAMPLE_SYSTEM_DATA,
  },
};
