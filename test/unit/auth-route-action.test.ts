import { rolePermits } from "../../src/auth/action-match";
import { roleByName } from "../../src/auth/role-definitions";
import { isListRoute, routeAction } from "../../src/auth/route-action";
import { routes } from "../../src/triggers/routes";

// Every route of the one route table against the action a person would expect of it. A new route
// fails here until it is added to the table, so no route slips in with a made-up action.

const INSTANCE =
  "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}";
const PROJECT =
  "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/{projectName}";
const PROFILES = "TwinResources/authenticationProfiles";
const ENDPOINTS = "Microsoft.DigitalTwins/digitalTwinsInstances/endpoints";
const ASSESSMENTS = "Microsoft.Migrate/assessmentProjects/clusterAssessments";
const ASSIGNMENTS = "Microsoft.Authorization/roleAssignments";

/** `METHOD template` → [action, list?]; `anonymous` for the routes that need no caller. */
type Expected = readonly [action: string, list: boolean] | "anonymous";

const SCOPE_FORMS = [
  "",
  "authenticationProfiles/",
  "authenticationProfiles/{authenticationProfileName}/",
  "subscriptions/{subscriptionId}/",
  "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/",
  "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/",
  "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{resourceProviderNamespace}/{resourceType}/{resourceName}/{childResourceType}/{childResourceName}/",
];

const EXPECTED: Record<string, Expected> = {
  "GET health": "anonymous",
  "GET openapi.json": "anonymous",
  "GET authenticationProfiles": [`${PROFILES}/read`, true],
  "GET authenticationProfiles/{authenticationProfileName}": [`${PROFILES}/read`, false],
  "PUT authenticationProfiles/{authenticationProfileName}": [`${PROFILES}/write`, false],
  "PATCH authenticationProfiles/{authenticationProfileName}": [`${PROFILES}/write`, false],
  "DELETE authenticationProfiles/{authenticationProfileName}": [`${PROFILES}/delete`, false],
  [`GET ${INSTANCE}/endpoints`]: [`${ENDPOINTS}/read`, true],
  [`GET ${INSTANCE}/endpoints/{endpointName}`]: [`${ENDPOINTS}/read`, false],
  [`PUT ${INSTANCE}/endpoints/{endpointName}`]: [`${ENDPOINTS}/write`, false],
  [`PATCH ${INSTANCE}/endpoints/{endpointName}`]: [`${ENDPOINTS}/write`, false],
  [`DELETE ${INSTANCE}/endpoints/{endpointName}`]: [`${ENDPOINTS}/delete`, false],
  [`POST ${INSTANCE}/endpoints/{endpointName}/redeliverDeadLetters`]: [
    `${ENDPOINTS}/redeliverDeadLetters/action`,
    false,
  ],
  [`POST ${INSTANCE}/events`]: ["Microsoft.DigitalTwins/digitalTwinsInstances/events/action", false],
  [`GET ${PROJECT}/clusterAssessments`]: [`${ASSESSMENTS}/read`, true],
  [`GET ${PROJECT}/clusterAssessments/{assessmentName}`]: [`${ASSESSMENTS}/read`, false],
  [`PUT ${PROJECT}/clusterAssessments/{assessmentName}`]: [`${ASSESSMENTS}/write`, false],
  [`DELETE ${PROJECT}/clusterAssessments/{assessmentName}`]: [`${ASSESSMENTS}/delete`, false],
  ...Object.fromEntries(
    SCOPE_FORMS.flatMap((scope) => {
      const collection = `${scope}providers/Microsoft.Authorization/roleAssignments`;
      const item = `${collection}/{roleAssignmentName}`;
      return [
        [`GET ${collection}`, [`${ASSIGNMENTS}/read`, true]],
        [`GET ${item}`, [`${ASSIGNMENTS}/read`, false]],
        [`PUT ${item}`, [`${ASSIGNMENTS}/write`, false]],
        [`DELETE ${item}`, [`${ASSIGNMENTS}/delete`, false]],
      ];
    }),
  ),
};

const ROUTES = routes.flatMap((route) =>
  route.methods.map((method) => ({ key: `${method} ${route.route}`, route, method })),
);

describe("routeAction and isListRoute over the route table", () => {
  it("has an expected action for every route and method, and no expectation without a route", () => {
    expect(ROUTES.map((entry) => entry.key).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(ROUTES.map((entry) => [entry.key, entry] as const))("%s", (_key, { key, route, method }) => {
    const expected = EXPECTED[key] as Expected;
    if (expected === "anonymous") {
      expect(route.authLevel).toBe("anonymous");
      return;
    }
    expect(route.authLevel).not.toBe("anonymous");
    expect([routeAction(route.route, method), isListRoute(route.route, method)]).toEqual(expected);
  });

  it("derives actions a role can name: no parameter, no empty segment, a known verb", () => {
    for (const { route, method } of ROUTES) {
      if (route.authLevel === "anonymous") continue;
      const action = routeAction(route.route, method);
      expect(action).not.toMatch(/[{}]|\/\/|^\/|\/$/);
      expect(action).toMatch(/^[A-Za-z][A-Za-z0-9.]*\/[A-Za-z/]+\/(read|write|delete|action)$/);
    }
  });

  it("lets Reader do exactly the GETs, and keeps the master-key routes out of Contributor's reach only for assignments", () => {
    const reader = roleByName("Reader");
    const contributor = roleByName("Contributor");
    if (reader === undefined || contributor === undefined) throw new Error("roles missing");
    for (const { route, method } of ROUTES) {
      if (route.authLevel === "anonymous") continue;
      const action = routeAction(route.route, method);
      expect([route.route, method, rolePermits(reader, action)]).toEqual([
        route.route,
        method,
        method === "GET",
      ]);
      const assignmentWrite = action === `${ASSIGNMENTS}/write` || action === `${ASSIGNMENTS}/delete`;
      expect([action, rolePermits(contributor, action)]).toEqual([action, !assignmentWrite]);
    }
  });
});

describe("routeAction on its own", () => {
  it("maps methods to verbs in any case, HEAD as a read, an unknown method as an action", () => {
    const item = "authenticationProfiles/{authenticationProfileName}";
    expect(routeAction(item, "get")).toBe(`${PROFILES}/read`);
    expect(routeAction(item, "HEAD")).toBe(`${PROFILES}/read`);
    expect(routeAction(item, "patch")).toBe(`${PROFILES}/write`);
    expect(routeAction(item, "TRACE")).toBe(`${PROFILES}/action`);
    expect(routeAction(`/${item}/`, "DELETE")).toBe(`${PROFILES}/delete`);
  });

  it("takes the last providers/{ns} as the namespace, so an assignment below a resource is an assignment action", () => {
    expect(
      routeAction(
        `${INSTANCE}/endpoints/{endpointName}/providers/Microsoft.Authorization/roleAssignments`,
        "GET",
      ),
    ).toBe(`${ASSIGNMENTS}/read`);
  });

  it("counts only GETs of a fixed last segment as lists", () => {
    expect(isListRoute(`${INSTANCE}/endpoints`, "GET")).toBe(true);
    expect(isListRoute(`${INSTANCE}/endpoints`, "get")).toBe(true);
    expect(isListRoute(`${INSTANCE}/endpoints`, "PUT")).toBe(false);
    expect(isListRoute(`${INSTANCE}/endpoints/{endpointName}`, "GET")).toBe(false);
    expect(isListRoute("", "GET")).toBe(false);
  });
});
