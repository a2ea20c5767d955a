import { ServiceError, type TwinServiceClient } from "../../client";
import { MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";
import { ASSESSMENT_INPUT, clientFor, collect, rejection, SUBSCRIPTION_ID } from "./fixtures";

// ClusterAssessment lookups, and the master-key write path (docs/api.md).
const PROJECT = { resourceGroupName: "rg-migrate-prod", projectName: "contoso-dc1" };
const REF = { ...PROJECT, assessmentName: "web-tier-aks" };

let host: TestHost;
let reader: TwinServiceClient;
let writer: TwinServiceClient;
beforeAll(async () => {
  host = await startTestHost();
  reader = clientFor(host, { subscriptionId: SUBSCRIPTION_ID });
  writer = clientFor(host, { subscriptionId: SUBSCRIPTION_ID, key: MASTER_KEY });
  await writer.assessments.put(REF, ASSESSMENT_INPUT);
});
afterAll(() => host.stop());

describe("the write path", () => {
  it("put with the master key creates (201) then replaces (200); the server sets the read-only fields", async () => {
    const ref = { ...REF, assessmentName: "written" };
    const created = await writer.assessments.put(ref, ASSESSMENT_INPUT);
    expect(created.created).toBe(true);
    expect(created).toMatchObject({
      name: "written",
      type: "Microsoft.Migrate/assessmentProjects/clusterAssessments",
      systemData: { createdBy: "_master", createdByType: "Key" },
    });
    expect(created.etag).toBe(created.eTag);
    expect((await writer.assessments.put(ref, ASSESSMENT_INPUT)).created).toBe(false);
    expect(await writer.assessments.delete(ref)).toBe(true);
    expect(await writer.assessments.delete(ref)).toBe(false);
  });

  it("put and delete with a function key answer 401", async () => {
    for (const write of [
      () => reader.assessments.put(REF, ASSESSMENT_INPUT),
      () => reader.assessments.delete(REF),
    ]) {
      const error = (await rejection(write)) as ServiceError;
      expect({ status: error.status, code: error.code }).toEqual({ status: 401, code: "Unauthorized" });
    }
  });

  it("put with a bad count names the field", async () => {
    const error = (await rejection(() =>
      writer.assessments.put(
        { ...REF, assessmentName: "bad" },
        { ...ASSESSMENT_INPUT, details: { ...ASSESSMENT_INPUT.details, machineCount: -1 } },
      ),
    )) as ServiceError;
    expect({ status: error.status, target: error.target }).toEqual({
      status: 400,
      target: "details.machineCount",
    });
  });
});

describe("lookups", () => {
  it("get returns the flat result with the seed's fields, and etag = eTag", async () => {
    const assessment = await reader.assessments.get(REF);
    expect(Object.keys(assessment).sort()).toEqual(
      [
        "details",
        "eTag",
        "etag",
        "id",
        "name",
        "provisioningState",
        "scope",
        "settings",
        "systemData",
        "type",
      ].sort(),
    );
    expect(assessment.etag).toBe(assessment.eTag);
    expect(assessment.settings).toEqual(ASSESSMENT_INPUT.settings);
  });

  it("answers for each of the three api-versions, and 400 for another", async () => {
    for (const version of ["2023-04-01-preview", "2023-05-01-preview", "2023-09-09-preview"]) {
      const client = clientFor(host, {
        subscriptionId: SUBSCRIPTION_ID,
        apiVersion: { assessments: version },
      });
      expect((await client.assessments.get(REF)).name).toBe("web-tier-aks");
    }
    const other = clientFor(host, {
      subscriptionId: SUBSCRIPTION_ID,
      apiVersion: { assessments: "2026-11-01" },
    });
    const error = (await rejection(() => other.assessments.get(REF))) as ServiceError;
    expect({ status: error.status, code: error.code }).toEqual({
      status: 400,
      code: "InvalidApiVersionParameter",
    });
  });

  it("getIfChanged answers undefined while the eTag holds (304)", async () => {
    const assessment = await reader.assessments.get(REF);
    expect(await reader.assessments.getIfChanged(REF, assessment.eTag)).toBeUndefined();
  });

  it("a subscription in the call wins over the client's; none at all is refused before sending", async () => {
    const error = (await rejection(() =>
      reader.assessments.get({ ...REF, subscriptionId: "00000000-0000-0000-0000-00000000ffff" }),
    )) as ServiceError;
    expect(error.status).toBe(404);
    await expect(clientFor(host).assessments.get(REF)).rejects.toThrow(/subscriptionId is required/);
  });

  it("lists a project's assessments across pages", async () => {
    for (const name of ["page-a", "page-b"]) {
      await writer.assessments.put({ ...PROJECT, assessmentName: name }, ASSESSMENT_INPUT);
    }
    const first = await reader.assessments.listPage(PROJECT, { top: 2 });
    expect(first.value).toHaveLength(2);
    expect(first.nextLink).toBeDefined();
    const names = (await collect(reader.assessments.list(PROJECT, { top: 2 }))).map((item) => item.name);
    expect(names.sort()).toEqual(["page-a", "page-b", "web-tier-aks"]);
  });

  it("404 for an assessment that does not exist", async () => {
    const error = (await rejection(() =>
      reader.assessments.get({ ...REF, assessmentName: "missing" }),
    )) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect({ status: error.status, code: error.code }).toEqual({ status: 404, code: "ResourceNotFound" });
  });
});
