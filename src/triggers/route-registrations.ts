import type { HttpMethod } from "@azure/functions";
import {
  AUTHENTICATION_PROFILE_PATH,
  CLUSTER_ASSESSMENT_PATH,
  QUEUE_ENDPOINT_PATH,
  RESOURCE_GROUP_PATH,
  TWIN_EVENTS_PATH,
} from "../common/arm-path";
import type { AuthLevel } from "../http/route";

/**
 * What the Functions host needs of a route at load: its function name, methods, template and key
 * level. The route table (routes.ts) holds the same and the handlers, whose zod schemas and
 * examples cost about 3 MB and 40 modules at load: functions/http.ts registers these and loads the
 * table with the first request (handlers-on-first-request.ts). A unit test holds this list equal to
 * the table, in the same order, so neither can change alone.
 */
export interface RouteRegistration {
  name: string;
  methods: HttpMethod[];
  route: string;
  authLevel: AuthLevel;
}

function at(name: string, method: HttpMethod, route: string, authLevel: AuthLevel): RouteRegistration {
  return { name, methods: [method], route, authLevel };
}

/** A resource's list, get, put and delete (and patch when `patch`), as resourceSpec's routes are made. */
function resource(
  prefix: string,
  path: { route: string; collection: { route: string } },
  levels: { read: AuthLevel; write: AuthLevel; patch?: boolean },
): RouteRegistration[] {
  const item = path.route;
  return [
    at(`${prefix}-list`, "GET", path.collection.route, levels.read),
    at(`${prefix}-get`, "GET", item, levels.read),
    at(`${prefix}-put`, "PUT", item, levels.write),
    at(`${prefix}-delete`, "DELETE", item, levels.write),
    ...(levels.patch === true ? [at(`${prefix}-patch`, "PATCH", item, levels.write)] : []),
  ];
}

const ROLE_ASSIGNMENTS = "providers/Microsoft.Authorization/roleAssignments";
const RESOURCE = `${RESOURCE_GROUP_PATH.route}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}`;

/** The scopes role assignments live at, as src/role-assignments/assignment-scopes.ts lists them. */
const ASSIGNMENT_SCOPES: readonly [form: string, scope: string][] = [
  ["root", ""],
  ["profiles", `${AUTHENTICATION_PROFILE_PATH.collection.route}/`],
  ["profile", `${AUTHENTICATION_PROFILE_PATH.route}/`],
  ["subscription", "subscriptions/{subscriptionId}/"],
  ["resourceGroup", `${RESOURCE_GROUP_PATH.route}/`],
  ["resource", `${RESOURCE}/`],
  ["childResource", `${RESOURCE}/{childResourceType}/{childResourceName}/`],
];

function roleAssignments(): RouteRegistration[] {
  return ASSIGNMENT_SCOPES.flatMap(([form, scope]) =>
    resource(
      `roleAssignments-${form}`,
      {
        route: `${scope}${ROLE_ASSIGNMENTS}/{roleAssignmentName}`,
        collection: { route: `${scope}${ROLE_ASSIGNMENTS}` },
      },
      { read: "admin", write: "admin" },
    ),
  );
}

const KEYED = { read: "function", write: "function" } as const;

export const routeRegistrations: readonly RouteRegistration[] = [
  at("health", "GET", "health", "anonymous"),
  ...resource("authenticationProfiles", AUTHENTICATION_PROFILE_PATH, { ...KEYED, patch: true }),
  ...resource("queueEndpoints", QUEUE_ENDPOINT_PATH, { ...KEYED, patch: true }),
  at(
    "queueEndpoints-redeliverDeadLetters",
    "POST",
    `${QUEUE_ENDPOINT_PATH.route}/redeliverDeadLetters`,
    "function",
  ),
  at("twinEvents-ingest", "POST", TWIN_EVENTS_PATH.route, "function"),
  ...resource("clusterAssessments", CLUSTER_ASSESSMENT_PATH, { read: "function", write: "admin" }),
  ...roleAssignments(),
  at("openapi", "GET", "openapi.json", "anonymous"),
];
