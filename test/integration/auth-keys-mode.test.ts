import { randomUUID } from "node:crypto";
import { expectArmError, expectHostAnswer } from "../support/arm";
import { MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";

// AUTH_MODE=keys keeps the Functions keys of before; what it adds is systemData and role
// assignments managed with the master key only.
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ AUTH_MODE: "keys" });
});
afterAll(() => host.stop());

const PROFILE = JSON.stringify({ authenticationProfileContent: '{"App_ID":"a"}' });

describe("AUTH_MODE=keys", () => {
  it("records the key that wrote in systemData", async () => {
    const created = await host.request("/authenticationProfiles/by-key", { method: "PUT", body: PROFILE });
    expect(created.status).toBe(201);
    const { systemData } = (await created.json()) as { systemData: Record<string, string> };
    expect(systemData).toMatchObject({
      createdBy: "default",
      createdByType: "Key",
      lastModifiedByType: "Key",
    });
    expect(Date.parse(systemData.createdAt as string)).toBeLessThanOrEqual(Date.now());
  });

  it("keeps createdBy and createdAt when another write changes the resource", async () => {
    const path = "/authenticationProfiles/kept";
    const first = (await (await host.request(path, { method: "PUT", body: PROFILE })).json()) as {
      systemData: Record<string, string>;
    };
    await new Promise((resolve) => setTimeout(resolve, 5));
    const patched = await host.request(path, { method: "PATCH", body: PROFILE });
    const { systemData } = (await patched.json()) as { systemData: Record<string, string> };
    expect(systemData.createdAt).toBe(first.systemData.createdAt);
    expect((systemData.lastModifiedAt as string) > (first.systemData.createdAt as string)).toBe(true);
  });

  it("refuses systemData sent with another value, and takes it echoed unchanged", async () => {
    const path = "/authenticationProfiles/echoed";
    const created = (await (await host.request(path, { method: "PUT", body: PROFILE })).json()) as Record<
      string,
      unknown
    >;
    const echoed = await host.request(path, { method: "PUT", body: JSON.stringify(created) });
    expect(echoed.status).toBe(200);
    const forged = { ...created, systemData: { createdBy: "someone-else" } };
    await expectArmError(
      await host.request(path, { method: "PUT", body: JSON.stringify(forged) }),
      400,
      "InvalidRequestContent",
      "systemData",
    );
  });

  it("takes role assignments with the master key only", async () => {
    const at = `/subscriptions/s1/providers/Microsoft.Authorization/roleAssignments/${randomUUID()}`;
    const body = JSON.stringify({ principalId: randomUUID(), roleDefinitionName: "Reader" });
    await expectHostAnswer(await host.request(at, { method: "PUT", body }), 401);
    const created = await host.request(at, { method: "PUT", body, key: MASTER_KEY });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { systemData: { createdBy: string } }).systemData.createdBy).toBe(
      "_master",
    );
    expect((await host.request(at)).status).toBe(401);
    expect((await host.request(at, { key: MASTER_KEY })).status).toBe(200);
  });

  it("needs no token: a bearer header alone is no key", async () => {
    const response = await host.request("/authenticationProfiles", {
      key: null,
      headers: { authorization: "Bearer a.b.c" },
    });
    expect(response.status).toBe(401);
  });
});
