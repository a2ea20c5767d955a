import { CONTAINERS } from "../../src/store/containers";
import { LEDGER_ID } from "../../src/store/quota-ledger";
import { expectArmError } from "../support/arm";
import { startTestHost, type TestHost } from "../support/test-host";

// The two account quotas of docs/api.md: content bytes and profile count.
function putProfile(host: TestHost, name: string, content = "{}"): Promise<Response> {
  return host.request(`/authenticationProfiles/${name}`, {
    method: "PUT",
    body: JSON.stringify({ authenticationProfileContent: content }),
  });
}

async function listedNames(host: TestHost): Promise<string[]> {
  const body = (await (await host.request("/authenticationProfiles")).json()) as { value: { id: string }[] };
  return body.value.map((item) => item.id).sort();
}

describe("the content size quota", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ AUTH_PROFILE_CONTENT_MAX_BYTES: "64" });
  });
  afterAll(() => host.stop());

  it("answers 409 QuotaExceeded over the quota, counting UTF-8 bytes, on PUT and PATCH", async () => {
    const fits = JSON.stringify({ a: "x".repeat(56) });
    expect(Buffer.byteLength(fits)).toBe(64);
    expect((await putProfile(host, "sized", fits)).status).toBe(201);
    // 39 characters, but 69 bytes: the quota is of bytes.
    const tooBig = JSON.stringify({ a: "é".repeat(31) });
    expect(tooBig.length).toBeLessThanOrEqual(64);
    const error = await expectArmError(
      await putProfile(host, "sized", tooBig),
      409,
      "QuotaExceeded",
      "authenticationProfileContent",
    );
    expect(error.message).toContain("64");
    expect(error.message).toContain("AUTH_PROFILE_CONTENT_MAX_BYTES");
    const patch = await host.request("/authenticationProfiles/sized", {
      method: "PATCH",
      body: JSON.stringify({ authenticationProfileContent: tooBig }),
    });
    await expectArmError(patch, 409, "QuotaExceeded", "authenticationProfileContent");
  });
});

describe("the profile count quota", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "10" });
  });
  afterAll(() => host.stop());

  it("holds when 20 creates race past it: exactly 10 are stored", async () => {
    const names = Array.from({ length: 20 }, (_, index) => `race-${index}`);
    const responses = await Promise.all(names.map((name) => putProfile(host, name)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 409)).toHaveLength(10);
    const refused = responses.filter((response) => response.status === 409);
    for (const response of refused) await expectArmError(response, 409, "QuotaExceeded");
    const winners = names.filter((_, index) => statuses[index] === 201).sort();
    expect(await listedNames(host)).toEqual(winners);
  });

  it("still lets an existing profile be replaced when the quota is full", async () => {
    const [existing] = await listedNames(host);
    expect((await putProfile(host, existing as string, '{"App_ID":"2"}')).status).toBe(200);
  });

  it("frees a place when a profile is deleted", async () => {
    const [victim] = await listedNames(host);
    await expectArmError(await putProfile(host, "after-delete"), 409, "QuotaExceeded");
    expect((await host.request(`/authenticationProfiles/${victim}`, { method: "DELETE" })).status).toBe(200);
    expect((await putProfile(host, "after-delete")).status).toBe(201);
    await expectArmError(await putProfile(host, "one-too-many"), 409, "QuotaExceeded");
    expect(await listedNames(host)).toHaveLength(10);
  });
});

describe("names that are also members of every JavaScript object", () => {
  it("count against the quota like any other (found by fuzzing)", async () => {
    const host = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "1" });
    try {
      expect((await putProfile(host, "first")).status).toBe(201);
      await expectArmError(await putProfile(host, "constructor"), 409, "QuotaExceeded");
      await expectArmError(await putProfile(host, "toString"), 409, "QuotaExceeded");
    } finally {
      await host.stop();
    }
  });
});

describe("the quota ledger", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "2" });
  });
  afterAll(() => host.stop());

  it("recounts from the stored profiles when the ledger document is removed", async () => {
    expect((await putProfile(host, "counted-1")).status).toBe(201);
    expect((await putProfile(host, "counted-2")).status).toBe(201);
    expect(await host.services.profiles.ledger.members(host.services.profiles.quota)).toEqual([
      "counted-1",
      "counted-2",
    ]);
    // An operator removes the ledger (say, after deleting profiles by hand): the next write
    // counts the profiles that are stored, so the quota still holds.
    await host.services.database.container(CONTAINERS.profiles.id).item(LEDGER_ID, "account").delete();
    await expectArmError(await putProfile(host, "third"), 409, "QuotaExceeded");
    expect((await host.request("/authenticationProfiles/counted-1", { method: "DELETE" })).status).toBe(200);
    expect((await putProfile(host, "third")).status).toBe(201);
    expect(await listedNames(host)).toEqual(["counted-2", "third"]);
  });

  it("counts profiles that existed before the ledger did", async () => {
    const fresh = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "2" });
    try {
      const profiles = fresh.services.database.container(CONTAINERS.profiles.id);
      for (const name of ["legacy-1", "legacy-2"]) {
        await profiles.items.create({
          id: name,
          scope: "account",
          authenticationProfileName: name,
          authenticationProfileContent: "{}",
          createdAt: new Date(0).toISOString(),
          updatedAt: new Date(0).toISOString(),
        });
      }
      await expectArmError(await putProfile(fresh, "new-one"), 409, "QuotaExceeded");
    } finally {
      await fresh.stop();
    }
  });
});
