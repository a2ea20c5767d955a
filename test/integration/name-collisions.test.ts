import { createHash } from "node:crypto";
import { SAMPLE_ASSESSMENTS } from "../../dev/seed/sample-assessments";
import { MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";

// Names that one normalisation or another would fold into one id, over the wire: each must stay
// its own resource (ARM keeps them apart), while case variants stay one resource.
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ ENDPOINTS_PER_INSTANCE_MAX: "1" });
});
afterAll(() => host.stop());

const connection = (topic: string) =>
  `Endpoint=sb://names-ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=a2V5;EntityPath=${topic}`;
const endpointBody = (topic: string) =>
  JSON.stringify({
    queuePrimaryConnectionString: connection(topic),
    queueSecondaryConnectionString: connection(topic),
  });

const instance = (resourceGroup: string) =>
  `/subscriptions/00000000-0000-0000-0000-0000000000cc/resourceGroups/${encodeURIComponent(resourceGroup)}/providers/Microsoft.DigitalTwins/digitalTwinsInstances/kiln-twins`;

it("keeps resource groups 'Kiln' and '\u212Ailn' (Kelvin sign) apart: own endpoints, own quota", async () => {
  const ascii = await host.request(`${instance("Kiln")}/endpoints/orders`, {
    method: "PUT",
    body: endpointBody("ascii"),
  });
  const kelvin = await host.request(`${instance("\u212Ailn")}/endpoints/orders`, {
    method: "PUT",
    body: endpointBody("kelvin"),
  });
  // Both created although each instance may hold one endpoint: they are two instances.
  expect([ascii.status, kelvin.status]).toEqual([201, 201]);
  const read = async (resourceGroup: string) =>
    (
      (await (await host.request(`${instance(resourceGroup)}/endpoints/orders`)).json()) as {
        queuePrimaryConnectionString: string;
      }
    ).queuePrimaryConnectionString;
  expect(await read("kiln")).toContain("EntityPath=ascii");
  expect(await read("\u212Ailn")).toContain("EntityPath=kelvin");
  // A case variant is the same instance, at its quota.
  expect(
    (
      await host.request(`${instance("KILN")}/endpoints/other`, {
        method: "PUT",
        body: endpointBody("ascii"),
      })
    ).status,
  ).toBe(409);
});

it("keeps an assessment apart from one named after its hashed id", async () => {
  const project =
    "/subscriptions/00000000-0000-0000-0000-0000000000cc/resourceGroups/migrate-rg/providers/Microsoft.Migrate/assessmentProjects/names";
  const body = JSON.stringify(SAMPLE_ASSESSMENTS[0]?.body);
  const longName = "l".repeat(260);
  const lookalike = `sha256-${createHash("sha256").update(longName).digest("hex")}`;
  for (const name of [longName, lookalike]) {
    const response = await host.request(`${project}/clusterAssessments/${name}`, {
      method: "PUT",
      body,
      key: MASTER_KEY,
    });
    expect(response.status).toBe(201);
  }
  const listed = (await (await host.request(`${project}/clusterAssessments`)).json()) as {
    value: { name: string }[];
  };
  expect(listed.value.map((assessment) => assessment.name).sort()).toEqual([longName, lookalike].sort());
});
