import {
  COSMOS_EMULATOR_KEY,
  type RunningCosmosServer,
  startCosmosServer,
} from "../../dev/stand-ins/cosmos-server";
import { CONTAINERS, ensureContainers } from "../../src/store/containers";
import { LEDGER_ID } from "../../src/store/quota-ledger";
import { expectArmError } from "../support/arm";
import { startTestHost, type TestHost } from "../support/test-host";

// The Cosmos DB server stopped under a running host: requests answer 503 with Retry-After (never
// a 500), /health says which dependency is down, and the host recovers by itself when the
// server returns, with no restart.
let cosmos: RunningCosmosServer;
let host: TestHost;

beforeAll(async () => {
  cosmos = await startCosmosServer(0);
  host = await startTestHost({
    COSMOS_ENDPOINT: cosmos.endpoint,
    COSMOS_KEY: COSMOS_EMULATOR_KEY,
    COSMOS_REQUEST_TIMEOUT_MS: "2000",
  });
});

afterAll(async () => {
  await host.stop();
  await cosmos.close();
});

const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/twins";

const put = (name: string) =>
  host.request(`/authenticationProfiles/${name}`, {
    method: "PUT",
    body: JSON.stringify({ authenticationProfileContent: "{}" }),
  });

it("answers 503 with Retry-After while the store is down, and recovers without a restart", async () => {
  expect((await put("before")).status).toBe(201);

  await cosmos.close();
  const requests = [
    () => host.request("/authenticationProfiles/before"),
    () => put("during"),
    () => host.request("/authenticationProfiles"),
    () => host.request("/authenticationProfiles/before", { method: "DELETE" }),
    () =>
      host.request(
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/twins/endpoints",
      ),
    // Event routes: a write (its batch reads the endpoint), a delete (through the routes' ledger), a list.
    () =>
      host.request(`${INSTANCE}/eventRoutes/route-r`, {
        method: "PUT",
        body: JSON.stringify({ endpointName: "e-one", filter: "true" }),
      }),
    () => host.request(`${INSTANCE}/eventRoutes/route-r`, { method: "DELETE" }),
    () => host.request(`${INSTANCE}/eventRoutes`),
    () => host.request(`${INSTANCE}/endpoints/e-one`, { method: "DELETE" }),
  ];
  for (const request of requests) {
    const response = await request();
    await expectArmError(response, 503, "ServiceUnavailable");
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  }
  const health = await host.request("/health", { key: null });
  expect(health.status).toBe(503);
  expect(((await health.json()) as { checks: Record<string, string> }).checks.cosmos).toBe("unavailable");
  expect(host.logs.filter((entry) => / -> 500 /.test(entry.message))).toEqual([]);

  // The server comes back on the same port (empty: it keeps its data in memory).
  cosmos = await startCosmosServer(cosmos.port);
  await ensureContainers(host.services.cosmos, host.config.COSMOS_DATABASE);
  const deadline = Date.now() + 60_000;
  let status = 0;
  while (Date.now() < deadline && status !== 201) {
    status = (await put("after")).status;
    if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  expect(status).toBe(201);
  expect((await host.request("/authenticationProfiles/after")).status).toBe(200);
  expect((await host.request("/health", { key: null })).status).toBe(200);
  const { resources } = await host.services.database
    .container(CONTAINERS.profiles.id)
    .items.readAll()
    .fetchAll();
  expect(resources.map((item) => item.id).sort()).toEqual([LEDGER_ID, "after"]);
});
