import * as pulumi from "@pulumi/pulumi";
import { TwinServiceClient } from "../../client";
import { ASSESSMENT_INPUT, SUBSCRIPTION_ID } from "../../test/client/fixtures";
import { FUNCTION_KEY, MASTER_KEY, startTestHost, type TestHost } from "../../test/support/test-host";
import { resolved } from "./resolved";

// getClusterAssessmentOperation and its Output form, in a mocked Pulumi program, against the stack.
const LOOKUP = {
  resourceGroupName: "rg-migrate-prod",
  projectName: "contoso-dc1",
  assessmentName: "web-tier-aks",
};
const SEED_FIELDS = [
  "details",
  "eTag",
  "id",
  "name",
  "provisioningState",
  "scope",
  "settings",
  "systemData",
  "type",
].sort();

let host: TestHost;
let connection: { serviceEndpoint: string; serviceKey: string; subscriptionId: string };
beforeAll(async () => {
  await pulumi.runtime.setMocks(
    { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: () => ({}) },
    "project",
    "stack",
    false,
  );
  host = await startTestHost();
  connection = { serviceEndpoint: host.baseUrl, serviceKey: FUNCTION_KEY, subscriptionId: SUBSCRIPTION_ID };
  const producer = new TwinServiceClient({
    endpoint: host.baseUrl,
    key: MASTER_KEY,
    subscriptionId: SUBSCRIPTION_ID,
  });
  await producer.assessments.put(LOOKUP, ASSESSMENT_INPUT);
});
afterAll(() => host.stop());

async function pkg() {
  return import("../src");
}

describe("getClusterAssessmentOperation", () => {
  it("resolves to the seed's result fields, camelCase", async () => {
    const { getClusterAssessmentOperation } = await pkg();
    const result = await getClusterAssessmentOperation({ ...LOOKUP, ...connection });
    expect(Object.keys(result).sort()).toEqual(SEED_FIELDS);
    expect(result).toMatchObject({
      name: "web-tier-aks",
      type: "Microsoft.Migrate/assessmentProjects/clusterAssessments",
      provisioningState: "Succeeded",
      details: ASSESSMENT_INPUT.details,
      settings: ASSESSMENT_INPUT.settings,
      scope: ASSESSMENT_INPUT.scope,
      systemData: expect.objectContaining({ createdByType: "Key" }),
    });
  });

  it("takes the resource group in any casing, and each api-version", async () => {
    const { getClusterAssessmentOperation } = await pkg();
    for (const apiVersion of ["2023-04-01-preview", "2023-05-01-preview", "2023-09-09-preview"]) {
      const result = await getClusterAssessmentOperation({
        ...LOOKUP,
        resourceGroupName: "RG-MIGRATE-PROD",
        apiVersion,
        ...connection,
      });
      expect(result.name).toBe("web-tier-aks");
    }
  });

  it("takes the connection and subscription from the stack config when the args carry none", async () => {
    const { getClusterAssessmentOperation } = await pkg();
    pulumi.runtime.setConfig("twin-resource-service:endpoint", host.baseUrl);
    pulumi.runtime.setConfig("twin-resource-service:key", FUNCTION_KEY);
    pulumi.runtime.setConfig("twin-resource-service:subscriptionId", SUBSCRIPTION_ID);
    expect((await getClusterAssessmentOperation(LOOKUP)).name).toBe("web-tier-aks");
  });

  it("rejects with the service's error for an assessment that does not exist", async () => {
    const { getClusterAssessmentOperation } = await pkg();
    await expect(
      getClusterAssessmentOperation({ ...LOOKUP, assessmentName: "missing", ...connection }),
    ).rejects.toMatchObject({ status: 404, code: "ResourceNotFound" });
  });
});

describe("getClusterAssessmentOperationOutput", () => {
  it("takes Inputs and answers an Output of the same result, not secret for a secret key", async () => {
    const { getClusterAssessmentOperationOutput } = await pkg();
    const output = getClusterAssessmentOperationOutput({
      assessmentName: pulumi.output(LOOKUP.assessmentName),
      projectName: Promise.resolve(LOOKUP.projectName),
      resourceGroupName: LOOKUP.resourceGroupName,
      subscriptionId: SUBSCRIPTION_ID,
      serviceEndpoint: host.baseUrl,
      serviceKey: pulumi.secret(FUNCTION_KEY),
    });
    expect(pulumi.Output.isInstance(output)).toBe(true);
    const result = await resolved(output);
    expect(Object.keys(result).sort()).toEqual(SEED_FIELDS);
    expect(await resolved(output.settings.cloudLocation)).toBe("WestEurope");
    expect(await pulumi.isSecret(output)).toBe(false);
  });
});
