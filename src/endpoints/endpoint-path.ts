import { EVENT_ROUTE_PATH, QUEUE_ENDPOINT_PATH, TWINS_INSTANCE_PATH } from "../common/arm-path";
import { armPathSchema, RESOURCE_GROUP_NAMES } from "../common/arm-path-schema";
import { nameKey } from "../common/name-key";
import { z } from "../common/zod";

// Patterns without lookarounds: the API description carries them, and not every engine has those.
export const instanceNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9-]{1,61}[A-Za-z0-9]$/,
    "must be 3 to 63 letters, digits or hyphens, not starting or ending with a hyphen",
  );

export const endpointNameSchema = z
  .string()
  .regex(
    /^[a-zA-Z0-9][a-zA-Z0-9-]{1,48}[a-zA-Z0-9]$/,
    "must be 3 to 50 letters, digits or hyphens, not starting or ending with a hyphen",
  )
  .regex(/[^0-9]/, "must not be digits only");

// Event routes are named by the same rules as endpoints.
const NAMES = {
  ...RESOURCE_GROUP_NAMES,
  instanceName: instanceNameSchema,
  endpointName: endpointNameSchema,
  eventRouteName: endpointNameSchema,
};

export const instancePathSchema = armPathSchema(TWINS_INSTANCE_PATH, NAMES);
export const endpointPathSchema = armPathSchema(QUEUE_ENDPOINT_PATH, NAMES);
export const eventRoutePathSchema = armPathSchema(EVENT_ROUTE_PATH, NAMES);

export type InstancePath = z.infer<typeof instancePathSchema>;
export type EndpointPath = z.infer<typeof endpointPathSchema>;
export type EventRoutePath = z.infer<typeof eventRoutePathSchema>;

/**
 * The read actions of an instance's endpoints and routes, which writes of one ask of the other
 * (ARM's linked access checks): a route's endpoint, the routes an endpoint's 409 would name.
 */
export const ENDPOINT_READ_ACTION = "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read";
export const EVENT_ROUTE_READ_ACTION = "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/read";

/** The twins instance's resource id, in the casing given. */
export function twinsInstanceId(path: InstancePath): string {
  return TWINS_INSTANCE_PATH.id(path);
}

/** An endpoint's resource id, below its instance's id as stored. */
export function endpointId(twinsInstanceId: string, endpointName: string): string {
  return QUEUE_ENDPOINT_PATH.idUnder(twinsInstanceId, endpointName);
}

/** An event route's resource id, below its instance's id as stored. */
export function eventRouteId(twinsInstanceId: string, routeName: string): string {
  return EVENT_ROUTE_PATH.idUnder(twinsInstanceId, routeName);
}

/** Partition key of an instance's endpoints: its id, keyed as ARM ids compare (case-insensitively). */
export function instanceKey(path: InstancePath): string {
  return nameKey(twinsInstanceId(path));
}

/** Reads a twins instance id back into its names; undefined when it is not one. */
export function parseTwinsInstanceId(id: string): InstancePath | undefined {
  const values = TWINS_INSTANCE_PATH.parse(id, { trailingSlash: true });
  const parsed = values && instancePathSchema.safeParse(values);
  return parsed?.success ? parsed.data : undefined;
}
