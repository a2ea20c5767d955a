import { startTestHost, type TestHost } from "../support/test-host";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

it("creates and reads a profile", async () => {
  const put = await host.request("/authenticationProfiles/p1", {
    method: "PUT",
    body: JSON.stringify({ authenticationProfileContent: '{"a":"b"}' }),
  });
  console.log(put.status, Object.fromEntries(put.headers), await put.text());
  const get = await host.request("/authenticationProfiles/P1");
  console.log(get.status, await get.text());
  const list = await host.request("/authenticationProfiles");
  console.log(list.status, await list.text());
  const health = await host.request("/health", { key: null });
  console.log(health.status, await health.text());
  expect(put.status).toBe(201);
});
