import {
  AUTHENTICATION_PROFILE_PATH,
  CLUSTER_ASSESSMENT_PATH,
  QUEUE_ENDPOINT_PATH,
  TWIN_EVENTS_PATH,
  TWINS_INSTANCE_PATH,
} from "../../src/common/arm-path";
import { armPathSchema, RESOURCE_GROUP_NAMES } from "../../src/common/arm-path-schema";

const INSTANCE =
  "/subscriptions/s-1/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/twins";
const VALUES = { subscriptionId: "s-1", resourceGroupName: "rg", instanceName: "twins" };

describe("ArmPath", () => {
  it("writes the route templates the Functions host serves", () => {
    expect(QUEUE_ENDPOINT_PATH.route).toBe(
      "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/{instanceName}/endpoints/{endpointName}",
    );
    expect(QUEUE_ENDPOINT_PATH.collection.route).toBe(`${TWINS_INSTANCE_PATH.route}/endpoints`);
    expect(TWIN_EVENTS_PATH.route).toBe(`${TWINS_INSTANCE_PATH.route}/events`);
    expect(CLUSTER_ASSESSMENT_PATH.collection.route).toBe(
      "subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Migrate/assessmentProjects/{projectName}/clusterAssessments",
    );
    expect(AUTHENTICATION_PROFILE_PATH.collection.route).toBe("authenticationProfiles");
  });

  it("builds ids as given, or encoded, and names the resource type", () => {
    expect(TWINS_INSTANCE_PATH.id(VALUES)).toBe(INSTANCE);
    expect(QUEUE_ENDPOINT_PATH.id({ ...VALUES, endpointName: "a b" }, encodeURIComponent)).toBe(
      `${INSTANCE}/endpoints/a%20b`,
    );
    expect(QUEUE_ENDPOINT_PATH.idUnder(INSTANCE.toUpperCase(), "e")).toBe(
      `${INSTANCE.toUpperCase()}/endpoints/e`,
    );
    expect(CLUSTER_ASSESSMENT_PATH.resourceType).toBe(
      "Microsoft.Migrate/assessmentProjects/clusterAssessments",
    );
  });

  it("parses ids with fixed text in any casing, keeping values as written", () => {
    expect(TWINS_INSTANCE_PATH.parse(INSTANCE.replace("resourceGroups", "RESOURCEGROUPS"))).toEqual(VALUES);
    expect(TWINS_INSTANCE_PATH.parse(`${INSTANCE}/`)).toBeUndefined();
    expect(TWINS_INSTANCE_PATH.parse(`${INSTANCE}/`, { trailingSlash: true })).toEqual(VALUES);
    expect(TWINS_INSTANCE_PATH.parse(INSTANCE.replace("Microsoft.", "MicrosoftX"))).toBeUndefined();
    expect(QUEUE_ENDPOINT_PATH.split(`${INSTANCE.toLowerCase()}/ENDPOINTS/e-1`)).toEqual({
      parentId: INSTANCE.toLowerCase(),
      name: "e-1",
    });
    expect(QUEUE_ENDPOINT_PATH.split(`${INSTANCE}/endpoints/a/b`)).toBeUndefined();
  });

  it("gives the schema of a path's parameters, in path order", () => {
    const schema = armPathSchema(TWINS_INSTANCE_PATH, {
      ...RESOURCE_GROUP_NAMES,
      instanceName: RESOURCE_GROUP_NAMES.subscriptionId,
    });
    expect(Object.keys(schema.shape)).toEqual(["subscriptionId", "resourceGroupName", "instanceName"]);
    expect(schema.safeParse(VALUES).success).toBe(true);
    expect(schema.safeParse({ ...VALUES, resourceGroupName: "ends." }).success).toBe(false);
  });
});
