import { PreconditionFailed } from "../../src/common/errors";
import { CONTAINERS } from "../../src/store/containers";
import { DocumentStore } from "../../src/store/document-store";
import { startTestHost, type TestHost } from "../support/test-host";

// Writes that race a delete (found by `npm run load`): the replace of a document deleted since it
// was read must count as a lost race (retry, 404 or 412), never a 500.
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "1000" });
});
afterAll(() => host.stop());

it("reports a replace of a document deleted since it was read as PreconditionFailed", async () => {
  const store = new DocumentStore<{ id: string; scope: string; value: number }>(
    host.services.database.container(CONTAINERS.profiles.id),
    (document) => document.scope,
  );
  const created = await store.create({ id: "raced", scope: "account", value: 1 });
  expect(await store.delete("raced", "account", created._etag)).toBe("deleted");
  await expect(
    store.replace({ id: "raced", scope: "account", value: 2 }, created._etag),
  ).rejects.toBeInstanceOf(PreconditionFailed);
});

it("never answers 500 when PUT, PATCH and DELETE of one profile race each other", async () => {
  const statuses = new Set<number>();
  for (let round = 0; round < 15; round++) {
    const name = `race-${round}`;
    const body = JSON.stringify({ authenticationProfileContent: `{"round":"${round}"}` });
    await host.request(`/authenticationProfiles/${name}`, { method: "PUT", body });
    const responses = await Promise.all([
      host.request(`/authenticationProfiles/${name}`, { method: "PATCH", body }),
      host.request(`/authenticationProfiles/${name}`, { method: "DELETE" }),
      host.request(`/authenticationProfiles/${name}`, { method: "PUT", body }),
      host.request(`/authenticationProfiles/${name}`, { method: "PATCH", body }),
      host.request(`/authenticationProfiles/${name}`, { method: "DELETE" }),
    ]);
    for (const response of responses) statuses.add(response.status);
  }
  expect([...statuses].filter((status) => status >= 500)).toEqual([]);
  expect(host.logs.filter((entry) => entry.level === "error")).toEqual([]);
});
