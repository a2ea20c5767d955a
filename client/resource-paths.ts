/**
 * The service's resource paths (a resource's URL path is its id). Names are encoded segment by
 * segment; "." and ".." are refused because URL parsing would resolve them to another path. The
 * paths themselves are the service's (src/common/arm-path.ts, which imports nothing).
 */
import {
  AUTHENTICATION_PROFILE_PATH,
  CLUSTER_ASSESSMENT_PATH,
  EVENT_ROUTE_PATH,
  QUEUE_ENDPOINT_PATH,
  TWIN_EVENTS_PATH,
  TWINS_INSTANCE_PATH,
} from "../src/common/arm-path";

export interface TwinsInstanceRef {
  subscriptionId: string;
  resourceGroupName: string;
  instanceName: string;
}

export interface ProjectRef {
  /** Defaults to the client's `subscriptionId`. */
  subscriptionId?: string;
  resourceGroupName: string;
  projectName: string;
}

export interface AssessmentRef extends ProjectRef {
  assessmentName: string;
}

export function segment(value: string, what: string): string {
  if (typeof value !== "string" || value === "" || value === "." || value === "..") {
    throw new RangeError(`${what} must be a non-empty name`);
  }
  return encodeURIComponent(value);
}

/** How a name that is not a usable segment is called in the error. */
const LABELS: Readonly<Record<string, string>> = {
  endpointName: "endpoint name",
  eventRouteName: "event route name",
};

function encode(value: string, param: string): string {
  return segment(value, LABELS[param] ?? param);
}

export function profilePath(name?: string): string {
  return name === undefined
    ? AUTHENTICATION_PROFILE_PATH.collection.id({})
    : AUTHENTICATION_PROFILE_PATH.id({ authenticationProfileName: name }, encode);
}

/** The id of a digital-twins instance, the parent of its endpoints. */
export function twinsInstanceId(ref: TwinsInstanceRef): string {
  return TWINS_INSTANCE_PATH.id(ref);
}

export function parseTwinsInstanceId(id: string): TwinsInstanceRef | undefined {
  return TWINS_INSTANCE_PATH.parse(id);
}

/** An endpoint's id (its import identifier): the instance id, then `/endpoints/{name}`. */
export function endpointId(instanceId: string, name: string): string {
  return QUEUE_ENDPOINT_PATH.idUnder(instanceId, name);
}

export function parseEndpointId(id: string): { twinsInstanceId: string; name: string } | undefined {
  const split = QUEUE_ENDPOINT_PATH.split(id);
  return split && { twinsInstanceId: split.parentId, name: split.name };
}

/** An event route's id (its import identifier): the instance id, then `/eventRoutes/{name}`. */
export function eventRouteId(instanceId: string, name: string): string {
  return EVENT_ROUTE_PATH.idUnder(instanceId, name);
}

export function parseEventRouteId(id: string): { twinsInstanceId: string; name: string } | undefined {
  const split = EVENT_ROUTE_PATH.split(id);
  return split && { twinsInstanceId: split.parentId, name: split.name };
}

function instanceRef(instanceId: string): TwinsInstanceRef {
  const ref = parseTwinsInstanceId(instanceId);
  if (!ref) {
    const form = twinsInstanceId({
      subscriptionId: "{id}",
      resourceGroupName: "{group}",
      instanceName: "{name}",
    });
    throw new RangeError(`twinsInstanceId must be ${form}`);
  }
  return ref;
}

/** Where an instance's events are posted. */
export function eventsPath(instanceId: string): string {
  return TWIN_EVENTS_PATH.id(instanceRef(instanceId), encode);
}

export function endpointPath(instanceId: string, name?: string): string {
  const ref = instanceRef(instanceId);
  return name === undefined
    ? QUEUE_ENDPOINT_PATH.collection.id(ref, encode)
    : QUEUE_ENDPOINT_PATH.id({ ...ref, endpointName: name }, encode);
}

export function eventRoutePath(instanceId: string, name?: string): string {
  const ref = instanceRef(instanceId);
  return name === undefined
    ? EVENT_ROUTE_PATH.collection.id(ref, encode)
    : EVENT_ROUTE_PATH.id({ ...ref, eventRouteName: name }, encode);
}

/** `POST {endpointId}/redeliverDeadLetters`: an action on the endpoint. */
export function redeliverDeadLettersPath(instanceId: string, name: string): string {
  return `${endpointPath(instanceId, name)}/redeliverDeadLetters`;
}

/** Trying a route filter on an event, an action on the instance (the service's route is its own). */
const TEST_EVENT_ROUTE_FILTER_PATH = TWINS_INSTANCE_PATH.action("testEventRouteFilter");

/** `POST {twinsInstanceId}/testEventRouteFilter`: an action on the instance. */
export function testEventRouteFilterPath(instanceId: string): string {
  return TEST_EVENT_ROUTE_FILTER_PATH.id(instanceRef(instanceId), encode);
}

function projectRef(ref: ProjectRef, defaultSubscriptionId: string | undefined) {
  const subscriptionId = ref.subscriptionId ?? defaultSubscriptionId;
  if (subscriptionId === undefined) {
    throw new TypeError("subscriptionId is required: pass it in the call or in the client's options");
  }
  return { subscriptionId, resourceGroupName: ref.resourceGroupName, projectName: ref.projectName };
}

export function projectPath(ref: ProjectRef, defaultSubscriptionId: string | undefined): string {
  return CLUSTER_ASSESSMENT_PATH.collection.id(projectRef(ref, defaultSubscriptionId), encode);
}

export function assessmentPath(ref: AssessmentRef, defaultSubscriptionId: string | undefined): string {
  const project = projectRef(ref, defaultSubscriptionId);
  return CLUSTER_ASSESSMENT_PATH.id({ ...project, assessmentName: ref.assessmentName }, encode);
}

/** Where a scope's role assignments live, below the scope (the service's ROLE_ASSIGNMENTS_SEGMENT). */
export const ROLE_ASSIGNMENTS_SEGMENT = "providers/Microsoft.Authorization/roleAssignments";

/**
 * A scope as a URL path: `/` (everything), `/authenticationProfiles[/{name}]`, or an ARM resource id
 * (a subscription, a resource group, a resource, or a child of one), each segment encoded.
 */
function scopePath(scope: string): string {
  if (typeof scope !== "string" || !scope.startsWith("/")) {
    throw new RangeError("scope must be a path that starts with '/': '/', '/subscriptions/{id}', …");
  }
  if (scope === "/") return "";
  const segments = scope.replace(/\/$/, "").slice(1).split("/");
  return segments.map((value) => `/${segment(value, "each segment of scope")}`).join("");
}

/** `{scope}/providers/Microsoft.Authorization/roleAssignments[/{name}]` (no scope path at the root). */
export function roleAssignmentPath(scope: string, name?: string): string {
  const collection = `${scopePath(scope)}/${ROLE_ASSIGNMENTS_SEGMENT}`;
  return name === undefined ? collection : `${collection}/${segment(name, "role assignment name")}`;
}

const ROLE_ASSIGNMENT_ID = /^(.*)\/providers\/Microsoft\.Authorization\/roleAssignments\/([^/]+)$/i;

/** The scope (`/` at the root) and name of a role assignment's id; undefined for any other id. */
export function parseRoleAssignmentId(id: string): { scope: string; name: string } | undefined {
  const match = ROLE_ASSIGNMENT_ID.exec(id);
  if (!match || (match[1] !== "" && !match[1]?.startsWith("/"))) return undefined;
  return { scope: match[1] === "" ? "/" : (match[1] as string), name: match[2] as string };
}
