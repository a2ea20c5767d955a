import { SAMPLE_ASSESSMENTS, seedAssessments } from "../../dev/seed/sample-assessments";
import { ASSESSMENT_API_VERSIONS } from "../../src/common/api-versions";
import { expectArmError, expectHostAnswer } from "../support/arm";
import { MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";

// ClusterAssessment lookup (docs/api.md): read with the function key, written by the
// producing system with the master key.
const PROJECT =
  "/subscriptions/0a1b2c3d-0000-4000-8000-000000000005/resourceGroups/Migrate-RG/providers/Microsoft.Migrate/assessmentProjects/Contoso-Project";
const full = SAMPLE_ASSESSMENTS[0]?.body;
const minimal = SAMPLE_ASSESSMENTS[1]?.body;
if (!full || !minimal) throw new Error("the samples are missing");

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

function write(path: string, body: unknown, headers: Record<string, string> = {}, key = MASTER_KEY) {
  return host.request(`${PROJECT}${path}`, { method: "PUT", body: JSON.stringify(body), headers, key });
}

async function read(path: string, query = ""): Promise<Response> {
  return host.request(`${PROJECT}${path}${query}`);
}

describe("the lookup", () => {
  it("round-trips every field, with the server-made ones added", async () => {
    const created = await write("/clusterAssessments/Web-Tier", full);
    expect(created.status).toBe(201);
    const response = await read("/clusterAssessments/Web-Tier");
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      id: `${PROJECT}/clusterAssessments/Web-Tier`,
      name: "Web-Tier",
      type: "Microsoft.Migrate/assessmentProjects/clusterAssessments",
      eTag: response.headers.get("etag"),
      provisioningState: full.provisioningState,
      details: full.details,
      settings: full.settings,
      scope: full.scope,
      systemData: {
        createdAt: expect.any(String),
        createdBy: "_master",
        createdByType: "Key",
        lastModifiedAt: expect.any(String),
        lastModifiedBy: "_master",
        lastModifiedByType: "Key",
      },
    });
    expect(Date.parse(String((body.systemData as Record<string, string>).createdAt))).not.toBeNaN();
  });

  it("leaves the optional fields out when they were not given", async () => {
    await write("/clusterAssessments/minimal", minimal);
    const body = (await (await read("/clusterAssessments/minimal")).json()) as Record<
      string,
      Record<string, unknown>
    >;
    expect(body).not.toHaveProperty("scope");
    for (const field of ["discountPercentage", "performanceData", "scalingFactor"]) {
      expect(body.settings).not.toHaveProperty(field);
    }
  });

  it.each(ASSESSMENT_API_VERSIONS)("answers api-version %s with the same shape", async (version) => {
    await write("/clusterAssessments/versioned", full);
    const response = await read("/clusterAssessments/versioned", `?api-version=${version}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        "details",
        "eTag",
        "id",
        "name",
        "provisioningState",
        "scope",
        "settings",
        "systemData",
        "type",
      ].sort(),
    );
  });

  it.each(["2024-01-15", "2026-11-01", "not-a-version"])(
    "answers 400 InvalidApiVersionParameter for api-version %s, listing the supported ones",
    async (version) => {
      const error = await expectArmError(
        await read("/clusterAssessments/versioned", `?api-version=${version}`),
        400,
        "InvalidApiVersionParameter",
        "api-version",
      );
      for (const supported of ASSESSMENT_API_VERSIONS) expect(error.message).toContain(supported);
    },
  );

  it("matches each name segment case-insensitively and returns the stored casing", async () => {
    await write("/clusterAssessments/Cased-Assessment", full);
    const variants = [
      PROJECT.replace("Migrate-RG", "migrate-rg"),
      PROJECT.replace("Contoso-Project", "CONTOSO-PROJECT"),
      PROJECT.replace("0a1b2c3d", "0A1B2C3D"),
      PROJECT.replace("/resourceGroups/", "/RESOURCEGROUPS/").replace("/providers/", "/Providers/"),
    ];
    for (const project of variants) {
      const response = await host.request(`${project}/clusterAssessments/cased-ASSESSMENT`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, string>;
      expect(body.id).toBe(`${PROJECT}/clusterAssessments/Cased-Assessment`);
      expect(body.name).toBe("Cased-Assessment");
    }
  });

  it("answers 404 ResourceNotFound naming the assessment and its project", async () => {
    const error = await expectArmError(await read("/clusterAssessments/never-made"), 404, "ResourceNotFound");
    expect(error.message).toContain("never-made");
    expect(error.message).toContain("Contoso-Project");
  });

  it("answers 304 for If-None-Match with the current ETag, which is also the body's eTag", async () => {
    await write("/clusterAssessments/cached", full);
    const first = await read("/clusterAssessments/cached");
    const etag = first.headers.get("etag") as string;
    expect(((await first.json()) as { eTag: string }).eTag).toBe(etag);
    const again = await host.request(`${PROJECT}/clusterAssessments/cached`, {
      headers: { "If-None-Match": etag },
    });
    expect(again.status).toBe(304);
  });

  it("lists a project's assessments only, across pages", async () => {
    const other = PROJECT.replace("Contoso-Project", "Paged-Project");
    for (const name of ["p1", "p2", "p3"]) {
      const response = await host.request(`${other}/clusterAssessments/${name}`, {
        method: "PUT",
        body: JSON.stringify(minimal),
        key: MASTER_KEY,
      });
      expect(response.status).toBe(201);
    }
    const first = (await (await host.request(`${other}/clusterAssessments?$top=2`)).json()) as {
      value: { name: string }[];
      nextLink?: string;
    };
    expect(first.value.map((item) => item.name)).toEqual(["p1", "p2"]);
    const second = (await (
      await fetch(first.nextLink as string, { headers: { "x-functions-key": "test-function-key" } })
    ).json()) as {
      value: { name: string }[];
      nextLink?: string;
    };
    expect(second.value.map((item) => item.name)).toEqual(["p3"]);
    expect(second).not.toHaveProperty("nextLink");
  });
});

describe("writes", () => {
  it("refuse the function key with the host's 401, for PUT and DELETE", async () => {
    await expectHostAnswer(
      await write("/clusterAssessments/by-function-key", full, {}, "test-function-key"),
      401,
    );
    await expectHostAnswer(
      await host.request(`${PROJECT}/clusterAssessments/by-function-key`, { method: "DELETE" }),
      401,
    );
  });

  it("PUT replaces with 200, keeping createdAt and moving lastModifiedAt", async () => {
    await write("/clusterAssessments/replaced", full);
    const before = (await (await read("/clusterAssessments/replaced")).json()) as {
      systemData: Record<string, string>;
    };
    await new Promise((resolve) => setTimeout(resolve, 10));
    const replaced = await write("/clusterAssessments/replaced", { ...full, provisioningState: "Updating" });
    expect(replaced.status).toBe(200);
    const after = (await replaced.json()) as {
      provisioningState: string;
      systemData: Record<string, string>;
    };
    expect(after.provisioningState).toBe("Updating");
    expect(after.systemData.createdAt).toBe(before.systemData.createdAt);
    expect(after.systemData.lastModifiedAt).not.toBe(before.systemData.lastModifiedAt);
  });

  it("DELETE answers 200, then 204", async () => {
    await write("/clusterAssessments/deleted", full);
    const remove = () =>
      host.request(`${PROJECT}/clusterAssessments/deleted`, { method: "DELETE", key: MASTER_KEY });
    expect((await remove()).status).toBe(200);
    expect((await remove()).status).toBe(204);
  });

  it("accepts the server-made fields sent back with their current values only", async () => {
    await write("/clusterAssessments/echoed", full);
    const current = (await (await read("/clusterAssessments/echoed")).json()) as Record<string, unknown>;
    expect((await write("/clusterAssessments/echoed", current)).status).toBe(200);
    const now = (await (await read("/clusterAssessments/echoed")).json()) as Record<string, unknown>;
    for (const [field, value] of [
      ["id", `${PROJECT}/clusterAssessments/other`],
      ["name", "other"],
      ["type", "Microsoft.Migrate/assessmentProjects/assessments"],
      ["eTag", '"stale"'],
      ["systemData", { createdBy: "someone" }],
    ] as const) {
      await expectArmError(
        await write("/clusterAssessments/echoed", { ...now, [field]: value }),
        400,
        "InvalidRequestContent",
        field,
      );
    }
  });

  it("accepts a string setting outside the known values (extensible enums)", async () => {
    const body = { ...full, settings: { ...full.settings, cloudLocation: "MarsNorth", currency: "XTS" } };
    expect((await write("/clusterAssessments/extensible", body)).status).toBe(201);
  });
});

describe("validation", () => {
  const { machineCount: _omitted, ...detailsWithoutCount } = full.details;
  it.each([
    ["a missing required details field", { ...full, details: detailsWithoutCount }, "details.machineCount"],
    [
      "a missing required setting",
      { ...full, settings: { ...full.settings, cloudLocation: undefined } },
      "settings.cloudLocation",
    ],
    [
      "an empty string setting",
      { ...full, settings: { ...full.settings, currency: "" } },
      "settings.currency",
    ],
    [
      "a fractional count",
      { ...full, details: { ...full.details, webAppCount: 1.5 } },
      "details.webAppCount",
    ],
    [
      "a negative count",
      { ...full, details: { ...full.details, webServerCount: -1 } },
      "details.webServerCount",
    ],
    [
      "a count given as a string",
      { ...full, details: { ...full.details, machineCount: "48" } },
      "details.machineCount",
    ],
    [
      "a timestamp that is not ISO 8601",
      { ...full, details: { ...full.details, createdTimestamp: "2 Oct 2026" } },
      "details.createdTimestamp",
    ],
    [
      "a performance time that is not ISO 8601",
      {
        ...full,
        settings: {
          ...full.settings,
          performanceData: { percentile: "Percentile95", timeRange: "Day", perfDataStartTime: "yesterday" },
        },
      },
      "settings.performanceData.perfDataStartTime",
    ],
    [
      "performanceData without its timeRange",
      { ...full, settings: { ...full.settings, performanceData: { percentile: "Percentile95" } } },
      "settings.performanceData.timeRange",
    ],
    ["a missing provisioningState", { ...full, provisioningState: undefined }, "provisioningState"],
    ["an unknown property", { ...full, details: { ...full.details, extra: 1 } }, "details.extra"],
    ["a scope that is not an object", { ...full, scope: "all" }, "scope"],
  ])("answers 400 for %s", async (_label, body, target) => {
    await expectArmError(
      await write("/clusterAssessments/invalid", body),
      400,
      "InvalidRequestContent",
      target,
    );
  });

  it("answers 400 for a number that is not finite (1e400 parses to Infinity), naming it by its pointer", async () => {
    const text = JSON.stringify(full).replace(
      `"totalMonthlyCost":${full.details.totalMonthlyCost}`,
      '"totalMonthlyCost":1e400',
    );
    const response = await host.request(`${PROJECT}/clusterAssessments/infinite`, {
      method: "PUT",
      body: text,
      key: MASTER_KEY,
    });
    // Refused as the body is read (RFC 7493: JSON cannot carry it), so its target is a JSON pointer.
    await expectArmError(response, 400, "InvalidRequestContent", "/details/totalMonthlyCost");
  });

  it("stores and finds an assessment whose name is 260 characters, longer than a Cosmos id may be", async () => {
    const name = `Long-${"n".repeat(255)}`;
    expect((await write(`/clusterAssessments/${name}`, full)).status).toBe(201);
    const response = await read(`/clusterAssessments/${name.toUpperCase()}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { name: string }).name).toBe(name);
    await expectArmError(
      await write(`/clusterAssessments/${name}n`, full),
      400,
      "InvalidRequestContent",
      "assessmentName",
    );
  });

  it("answers 400 for a name with a character Azure Migrate refuses", async () => {
    await expectArmError(
      await write("/clusterAssessments/a%26b", full),
      400,
      "InvalidRequestContent",
      "assessmentName",
    );
  });

  it("accepts snake_case field names, nested too", async () => {
    const body = {
      provisioning_state: "Succeeded",
      details: full.details,
      settings: { ...full.settings, cloudLocation: undefined, cloud_location: "WestEurope" },
    };
    expect((await write("/clusterAssessments/snake", body)).status).toBe(201);
  });
});

describe("npm run seed", () => {
  it("loads the samples idempotently: created the first time, replaced the second", async () => {
    const seeded = await startTestHost();
    try {
      expect(await seedAssessments(seeded.services.assessments)).toEqual({
        created: SAMPLE_ASSESSMENTS.length,
        replaced: 0,
      });
      expect(await seedAssessments(seeded.services.assessments)).toEqual({
        created: 0,
        replaced: SAMPLE_ASSESSMENTS.length,
      });
      for (const { path } of SAMPLE_ASSESSMENTS) {
        expect((await seeded.services.assessments.get(path)).resource.name).toBe(path.assessmentName);
      }
    } finally {
      await seeded.stop();
    }
  });

  it("covers several projects and resource groups, and has every optional field both present and absent", () => {
    const projects = new Set(
      SAMPLE_ASSESSMENTS.map(({ path }) => `${path.resourceGroupName}/${path.projectName}`),
    );
    const groups = new Set(SAMPLE_ASSESSMENTS.map(({ path }) => path.resourceGroupName));
    expect(projects.size).toBeGreaterThanOrEqual(3);
    expect(groups.size).toBeGreaterThanOrEqual(2);
    const optional: ((body: (typeof SAMPLE_ASSESSMENTS)[number]["body"]) => unknown)[] = [
      (body) => body.scope,
      (body) => body.scope?.serverGroupId,
      (body) => body.settings.discountPercentage,
      (body) => body.settings.performanceData,
      (body) => body.settings.performanceData?.perfDataStartTime,
      (body) => body.settings.performanceData?.perfDataEndTime,
      (body) => body.settings.scalingFactor,
    ];
    for (const pick of optional) {
      const present = SAMPLE_ASSESSMENTS.filter(({ body }) => pick(body) !== undefined).length;
      expect(present).toBeGreaterThan(0);
      expect(present).toBeLessThan(SAMPLE_ASSESSMENTS.length);
    }
  });
});
