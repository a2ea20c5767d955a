import {
  ARM_ROOT,
  type ArmId,
  childOf,
  profileId,
  profilesId,
  providerResourceId,
  resourceGroupId,
  subscriptionId,
} from "../auth/arm-id";
import type { RouteDefinition, RouteOperation, RouteParams, RouteRow } from "../http/route";

/*
 * The typed ids routes act on, from the parameters the host matched (one segment each): never
 * from the path as a string, so a name is only ever a name.
 */
const value = (params: RouteParams, name: string): string => params[name] ?? "";
const root = (): ArmId => ARM_ROOT;
const profiles = (): ArmId => profilesId();
const profile = (params: RouteParams) => profileId(value(params, "authenticationProfileName"));
const profileNamed = (_params: RouteParams, name: string) => profileId(name);
const subscription = (params: RouteParams) => subscriptionId(value(params, "subscriptionId"));
const resourceGroup = (params: RouteParams) =>
  resourceGroupId(value(params, "subscriptionId"), value(params, "resourceGroupName"));
const instanceNamed = (params: RouteParams, name: string) =>
  providerResourceId(resourceGroup(params), "Microsoft.DigitalTwins", "digitalTwinsInstances", name);
const instance = (params: RouteParams) => instanceNamed(params, value(params, "instanceName"));
const endpointNamed = (params: RouteParams, name: string) => childOf(instance(params), "endpoints", name);
const endpoint = (params: RouteParams) => endpointNamed(params, value(params, "endpointName"));
const eventRouteNamed = (params: RouteParams, name: string) => childOf(instance(params), "eventRoutes", name);
const eventRoute = (params: RouteParams) => eventRouteNamed(params, value(params, "eventRouteName"));
const project = (params: RouteParams) =>
  providerResourceId(
    resourceGroup(params),
    "Microsoft.Migrate",
    "assessmentProjects",
    value(params, "projectName"),
  );
const assessmentNamed = (params: RouteParams, name: string) =>
  childOf(project(params), "clusterAssessments", name);
const assessment = (params: RouteParams) => assessmentNamed(params, value(params, "assessmentName"));
const resource = (params: RouteParams) =>
  providerResourceId(
    resourceGroup(params),
    value(params, "resourceProviderNamespace"),
    value(params, "resourceType"),
    value(params, "resourceName"),
  );
const childResource = (params: RouteParams) =>
  childOf(resource(params), value(params, "childResourceType"), value(params, "childResourceName"));

/** A module's export, required the first time it is asked for (the handlers' zod schemas cost ~3 MB). */
function onFirstUse<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => {
    loaded ??= { value: load() };
    return loaded.value;
  };
}

// Each require names its module literally, so a bundler can follow it.
const ops = {
  health: onFirstUse(
    () =>
      (require("../http/routes/health-routes") as typeof import("../http/routes/health-routes"))
        .healthOperation,
  ),
  profiles: onFirstUse(
    () =>
      (require("../http/routes/profile-routes") as typeof import("../http/routes/profile-routes"))
        .profileOperations,
  ),
  endpoints: onFirstUse(
    () =>
      (require("../http/routes/endpoint-routes") as typeof import("../http/routes/endpoint-routes"))
        .endpointOperations,
  ),
  eventRoutes: onFirstUse(
    () =>
      (require("../http/routes/event-route-routes") as typeof import("../http/routes/event-route-routes"))
        .eventRouteOperations,
  ),
  testEventRouteFilter: onFirstUse(
    () =>
      (
        require("../http/routes/event-route-filter-test-routes") as typeof import("../http/routes/event-route-filter-test-routes")
      ).testEventRouteFilterOperation,
  ),
  ingest: onFirstUse(
    () =>
      (require("../http/routes/ingest-routes") as typeof import("../http/routes/ingest-routes"))
        .ingestOperation,
  ),
  assessments: onFirstUse(
    () =>
      (require("../http/routes/assessment-routes") as typeof import("../http/routes/assessment-routes"))
        .assessmentOperations,
  ),
  roleAssignments: onFirstUse(
    () =>
      (
        require("../http/routes/role-assignment-routes") as typeof import("../http/routes/role-assignment-routes")
      ).roleAssignmentOperations,
  ),
  secrets: onFirstUse(
    () =>
      (require("../http/routes/secrets-routes") as typeof import("../http/routes/secrets-routes"))
        .resealOperation,
  ),
  openapi: onFirstUse(() =>
    (require("../http/openapi-routes") as typeof import("../http/openapi-routes")).openApiOperation(
      routeDefinitions,
    ),
  ),
};

/**
 * The one route table, greppable by URL: each row is a function of the Functions host, with its
 * method, template and key level, the ARM operation it performs and the typed id it acts on (which
 * src/http/caller.ts authorizes, comparing typed ids), and a loader of its handler. functions/http.ts
 * registers every row at load; a row's handler module loads with its first request. The local host
 * (dev/) serves routeDefinitions(). Its companion, the queue-function table, is queue-functions.ts.
 */
// biome-ignore format: one row a line, so that grep of a URL or a function name shows its whole row
export const routeTable: readonly RouteRow[] = [
  { name: "health", method: "GET", route: "health", authLevel: "anonymous", load: () => ops.health() },
  { name: "authenticationProfiles-list", method: "GET", route: "authenticationProfiles", authLevel: "function", action: "TwinResources/authenticationProfiles/read", actsOn: profiles, item: profileNamed, load: () => ops.profiles().list },
  { name: "authenticationProfiles-get", method: "GET", route: "authenticationProfiles/{authenticationProfileName}", authLevel: "function", action: "TwinResources/authenticationProfiles/read", actsOn: profile, load: () => ops.profiles().get },
  { name: "authenticationProfiles-put", method: "PUT", route: "authenticationProfiles/{authenticationProfileName}", authLevel: "function", action: "TwinResources/authenticationProfiles/write", actsOn: profile, load: () => ops.profiles().put },
  { name: "authenticationProfiles-delete", method: "DELETE", route: "authenticationProfiles/{authenticationProfileName}", authLevel: "function", action: "TwinResources/authenticationProfiles/delete", actsOn: profile, load: () => ops.profiles().delete },
  { name: "authenticationProfiles-patch", method: "PATCH", route: "authenticationProfiles/{authenticationProfileName}", authLevel: "function", action: "TwinResources/authenticationProfiles/write", actsOn: profile, load: () => ops.profiles().patch },
  { name: "queueEndpoints-list", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read", actsOn: instance, item: endpointNamed, load: () => ops.endpoints().list },
  { name: "queueEndpoints-get", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints/{endpointName}", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/read", actsOn: endpoint, load: () => ops.endpoints().get },
  { name: "queueEndpoints-put", method: "PUT", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints/{endpointName}", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/write", actsOn: endpoint, load: () => ops.endpoints().put },
  { name: "queueEndpoints-delete", method: "DELETE", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints/{endpointName}", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/delete", actsOn: endpoint, load: () => ops.endpoints().delete },
  { name: "queueEndpoints-patch", method: "PATCH", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints/{endpointName}", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/write", actsOn: endpoint, load: () => ops.endpoints().patch },
  { name: "queueEndpoints-redeliverDeadLetters", method: "POST", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints/{endpointName}/redeliverDeadLetters", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints/redeliverDeadLetters/action", actsOn: endpoint, load: () => ops.endpoints().redeliverDeadLetters },
  { name: "eventRoutes-list", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/eventRoutes", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/read", actsOn: instance, item: eventRouteNamed, load: () => ops.eventRoutes().list },
  { name: "eventRoutes-get", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/eventRoutes/{eventRouteName}", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/read", actsOn: eventRoute, load: () => ops.eventRoutes().get },
  { name: "eventRoutes-put", method: "PUT", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/eventRoutes/{eventRouteName}", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/write", actsOn: eventRoute, load: () => ops.eventRoutes().put },
  { name: "eventRoutes-delete", method: "DELETE", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/eventRoutes/{eventRouteName}", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/delete", actsOn: eventRoute, load: () => ops.eventRoutes().delete },
  { name: "eventRoutes-testFilter", method: "POST", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/testEventRouteFilter", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/eventRoutes/read", actsOn: instance, load: () => ops.testEventRouteFilter() },
  { name: "twinEvents-ingest", method: "POST", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/events", authLevel: "function", action: "Microsoft.DigitalTwins/digitalTwinsInstances/events/action", actsOn: instance, load: () => ops.ingest() },
  { name: "clusterAssessments-list", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/{projectName}/clusterAssessments", authLevel: "function", action: "Microsoft.Migrate/assessmentProjects/clusterAssessments/read", actsOn: project, item: assessmentNamed, load: () => ops.assessments().list },
  { name: "clusterAssessments-get", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/{projectName}/clusterAssessments/{assessmentName}", authLevel: "function", action: "Microsoft.Migrate/assessmentProjects/clusterAssessments/read", actsOn: assessment, load: () => ops.assessments().get },
  { name: "clusterAssessments-put", method: "PUT", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/{projectName}/clusterAssessments/{assessmentName}", authLevel: "admin", action: "Microsoft.Migrate/assessmentProjects/clusterAssessments/write", actsOn: assessment, load: () => ops.assessments().put },
  { name: "clusterAssessments-delete", method: "DELETE", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/{projectName}/clusterAssessments/{assessmentName}", authLevel: "admin", action: "Microsoft.Migrate/assessmentProjects/clusterAssessments/delete", actsOn: assessment, load: () => ops.assessments().delete },
  { name: "roleAssignments-root-list", method: "GET", route: "providers/Microsoft.Authorization/roleAssignments", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: root, load: () => ops.roleAssignments().root.list },
  { name: "roleAssignments-root-get", method: "GET", route: "providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: root, load: () => ops.roleAssignments().root.get },
  { name: "roleAssignments-root-put", method: "PUT", route: "providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/write", actsOn: root, load: () => ops.roleAssignments().root.put },
  { name: "roleAssignments-root-delete", method: "DELETE", route: "providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/delete", actsOn: root, load: () => ops.roleAssignments().root.delete },
  { name: "roleAssignments-profiles-list", method: "GET", route: "authenticationProfiles/providers/Microsoft.Authorization/roleAssignments", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: profiles, load: () => ops.roleAssignments().profiles.list },
  { name: "roleAssignments-profiles-get", method: "GET", route: "authenticationProfiles/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: profiles, load: () => ops.roleAssignments().profiles.get },
  { name: "roleAssignments-profiles-put", method: "PUT", route: "authenticationProfiles/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/write", actsOn: profiles, load: () => ops.roleAssignments().profiles.put },
  { name: "roleAssignments-profiles-delete", method: "DELETE", route: "authenticationProfiles/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/delete", actsOn: profiles, load: () => ops.roleAssignments().profiles.delete },
  { name: "roleAssignments-profile-list", method: "GET", route: "authenticationProfiles/{authenticationProfileName}/providers/Microsoft.Authorization/roleAssignments", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: profile, load: () => ops.roleAssignments().profile.list },
  { name: "roleAssignments-profile-get", method: "GET", route: "authenticationProfiles/{authenticationProfileName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: profile, load: () => ops.roleAssignments().profile.get },
  { name: "roleAssignments-profile-put", method: "PUT", route: "authenticationProfiles/{authenticationProfileName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/write", actsOn: profile, load: () => ops.roleAssignments().profile.put },
  { name: "roleAssignments-profile-delete", method: "DELETE", route: "authenticationProfiles/{authenticationProfileName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/delete", actsOn: profile, load: () => ops.roleAssignments().profile.delete },
  { name: "roleAssignments-subscription-list", method: "GET", route: "subscriptions/{subscriptionId}/providers/Microsoft.Authorization/roleAssignments", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: subscription, load: () => ops.roleAssignments().subscription.list },
  { name: "roleAssignments-subscription-get", method: "GET", route: "subscriptions/{subscriptionId}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: subscription, load: () => ops.roleAssignments().subscription.get },
  { name: "roleAssignments-subscription-put", method: "PUT", route: "subscriptions/{subscriptionId}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/write", actsOn: subscription, load: () => ops.roleAssignments().subscription.put },
  { name: "roleAssignments-subscription-delete", method: "DELETE", route: "subscriptions/{subscriptionId}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/delete", actsOn: subscription, load: () => ops.roleAssignments().subscription.delete },
  { name: "roleAssignments-resourceGroup-list", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Authorization/roleAssignments", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: resourceGroup, load: () => ops.roleAssignments().resourceGroup.list },
  { name: "roleAssignments-resourceGroup-get", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: resourceGroup, load: () => ops.roleAssignments().resourceGroup.get },
  { name: "roleAssignments-resourceGroup-put", method: "PUT", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/write", actsOn: resourceGroup, load: () => ops.roleAssignments().resourceGroup.put },
  { name: "roleAssignments-resourceGroup-delete", method: "DELETE", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/delete", actsOn: resourceGroup, load: () => ops.roleAssignments().resourceGroup.delete },
  { name: "roleAssignments-resource-list", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/providers/Microsoft.Authorization/roleAssignments", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: resource, load: () => ops.roleAssignments().resource.list },
  { name: "roleAssignments-resource-get", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: resource, load: () => ops.roleAssignments().resource.get },
  { name: "roleAssignments-resource-put", method: "PUT", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/write", actsOn: resource, load: () => ops.roleAssignments().resource.put },
  { name: "roleAssignments-resource-delete", method: "DELETE", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/delete", actsOn: resource, load: () => ops.roleAssignments().resource.delete },
  { name: "roleAssignments-childResource-list", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/{childResourceType}/{childResourceName}/providers/Microsoft.Authorization/roleAssignments", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: childResource, load: () => ops.roleAssignments().childResource.list },
  { name: "roleAssignments-childResource-get", method: "GET", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/{childResourceType}/{childResourceName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/read", actsOn: childResource, load: () => ops.roleAssignments().childResource.get },
  { name: "roleAssignments-childResource-put", method: "PUT", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/{childResourceType}/{childResourceName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/write", actsOn: childResource, load: () => ops.roleAssignments().childResource.put },
  { name: "roleAssignments-childResource-delete", method: "DELETE", route: "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/{childResourceType}/{childResourceName}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}", authLevel: "admin", action: "Microsoft.Authorization/roleAssignments/delete", actsOn: childResource, load: () => ops.roleAssignments().childResource.delete },
  { name: "secrets-reseal", method: "POST", route: "providers/TwinResources/resealSecrets", authLevel: "admin", action: "TwinResources/secrets/reseal/action", actsOn: root, load: () => ops.secrets() },
  { name: "openapi", method: "GET", route: "openapi.json", authLevel: "anonymous", load: () => ops.openapi() },
];

let definitions: readonly RouteDefinition[] | undefined;

/** Every row with its operation loaded, in table order: for the local host and the API description. */
export function routeDefinitions(): readonly RouteDefinition[] {
  definitions ??= routeTable.map(definitionOf);
  return definitions;
}

export function definitionOf({ method, load, ...row }: RouteRow): RouteDefinition {
  const operation: RouteOperation = load();
  return { ...row, methods: [method], ...operation };
}
