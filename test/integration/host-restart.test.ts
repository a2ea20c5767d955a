import { startTestHost } from "../support/test-host";

it("keeps data in the Cosmos server across a restart of the local host", async () => {
  const first = await startTestHost();
  const created = await first.request("/authenticationProfiles/survivor", {
    method: "PUT",
    body: JSON.stringify({ authenticationProfileContent: '{"App_ID":"kept"}' }),
  });
  expect(created.status).toBe(201);
  await first.stop();
  expect(await fetch(`${first.baseUrl}/health`).catch(() => "refused")).toBe("refused");

  const second = await startTestHost({}, first.config.COSMOS_DATABASE);
  try {
    const read = await second.request("/authenticationProfiles/survivor");
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).toBe(created.headers.get("etag"));
    expect(await read.json()).toEqual(await created.json());
  } finally {
    await second.stop();
  }
});
