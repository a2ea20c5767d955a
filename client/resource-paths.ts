/**
 * The service's resource paths (a resource's URL path is its id). Names are encoded segment by
 * segment; "." and ".." are refused because URL parsing would resolve them to another path.
 */

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

export function profilePath(name?: string): string {
  return name === undefined
    ? "/authenticationProfiles"
    : `/authenticationProfiles/${segment(name, "authenticationProfileName")}`;
}

const INSTANCE_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.DigitalTwins\/digitalTwinsInstances\/([^/]+)$/i;
const ENDPOINT_ID = /^(\/subscriptions\/.+\/digitalTwinsInstances\/[^/]+)\/endpoints\/([^/]+)$/i;

/** The id of a digital-twins instance, the parent of its endpoints. */
export function twinsInstanceId(ref: TwinsInstanceRef): string {
  return `/subscriptions/${ref.subscriptionId}/resourceGroups/${ref.resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${ref.instanceName}`;
}

export function parseTwinsInstanceId(id: string): TwinsInstanceRef | undefined {
  const match = INSTANCE_ID.exec(id);
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  return { subscriptionId: match[1], resourceGroupName: match[2], instanceName: match[3] };
}

/** An endpoint's id (its import identifier): the instance id, then `/endpoints/{name}`. */
export function endpointId(instanceId: string, name: string): string {
  return `${instanceId}/endpoints/${name}`;
}

export function parseEndpointId(id: string): { twinsInstanceId: string; name: string } | undefined {
  const match = ENDPOINT_ID.exec(id);
  if (!match?.[1] || !match[2] || parseTwinsInstanceId(match[1]) === undefined) return undefined;
  return { twinsInstanceId: match[1], name: match[2] };
}

export function instancePath(instanceId: string): string {
  const ref = parseTwinsInstanceId(instanceId);
  if (!ref) {
    throw new RangeError(
      "twinsInstanceId must be /subscriptions/{id}/resourceGroups/{group}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{name}",
    );
  }
  return [
    `/subscriptions/${segment(ref.subscriptionId, "subscriptionId")}`,
    `/resourceGroups/${segment(ref.resourceGroupName, "resourceGroupName")}`,
    `/providers/Microsoft.DigitalTwins/digitalTwinsInstances/${segment(ref.instanceName, "instanceName")}`,
  ].join("");
}

export function endpointPath(instanceId: string, name?: string): string {
  const endpoints = `${instancePath(instanceId)}/endpoints`;
  return name === undefined ? endpoints : `${endpoints}/${segment(name, "endpoint name")}`;
}

export function projectPath(ref: ProjectRef, defaultSubscriptionId: string | undefined): string {
  const subscriptionId = ref.subscriptionId ?? defaultSubscriptionId;
  if (subscriptionId === undefined) {
    throw new TypeError("subscriptionId is required: pass it in the call or in the client's options");
  }
  return [
    `/subscriptions/${segment(subscriptionId, "subscriptionId")}`,
    `/resourceGroups/${segment(ref.resourceGroupName, "resourceGroupName")}`,
    `/providers/Microsoft.Migrate/assessmentProjects/${segment(ref.projectName, "projectName")}`,
    "/clusterAssessments",
  ].join("");
}

export function assessmentPath(ref: AssessmentRef, defaultSubscriptionId: string | undefined): string {
  return `${projectPath(ref, defaultSubscriptionId)}/${segment(ref.assessmentName, "assessmentName")}`;
}
