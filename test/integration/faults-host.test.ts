import type { IncomingMessage } from "node:http";
import { freePort } from "../../dev/ports";
import { CONTAINERS } from "../../src/store/containers";
import { type BuiltProcess, startBuiltProcess } from "../support/built-process";
import { type HoldingCosmos, startHoldingCosmos } from "../support/holding-cosmos";
import { startTestHost, type TestHost } from "../support/test-host";

// The host killed (SIGKILL) while PUTs are in flight: afterwards each resource is either fully
// written or absent, never half-written, and the count quota still holds. The database is a Cosmos
// DB server of this file's own, which holds one create's write, so the kill is known to find a
// PUT halfway.
let cosmos: HoldingCosmos;
let reader: TestHost;
let victim: BuiltProcess | undefined;

beforeAll(async () => {
  cosmos = await startHoldingCosmos();
  reader = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "25", ...cosmos.settings });
});

afterAll(async () => {
  await victim?.kill();
  await reader.stop();
  await cosmos.close();
});

/** A profile's create: its document and the quota ledger's, in one transactional batch. */
const profileCreate = (request: IncomingMessage) =>
  request.method === "POST" &&
  request.url?.endsWith(`/colls/${CONTAINERS.profiles.id}/docs`) === true &&
  String(request.headers["x-ms-cosmos-is-batch-request"]).toLowerCase() === "true";

it("leaves every profile whole or absent when the host dies mid-PUT", async () => {
  const port = await freePort();
  victim = await startBuiltProcess("local-host-main.js", {
    ...reader.appSettings,
    PORT: String(port),
    FUNCTION_KEY: "fault-key",
    MASTER_KEY: "fault-master-key",
  });
  const contents = Array.from({ length: 40 }, (_, index) =>
    JSON.stringify({ App_ID: `app-${index}`, Client_ID: "x".repeat(3000), index }),
  );
  const held = cosmos.holdWhere(profileCreate);
  const attempts = contents.map((content, index) =>
    fetch(`http://127.0.0.1:${port}/authenticationProfiles/crash-${index}`, {
      method: "PUT",
      headers: { "x-functions-key": "fault-key", "content-type": "application/json" },
      body: JSON.stringify({ authenticationProfileContent: content }),
    }).then(
      (response) => response.status,
      () => "cut off",
    ),
  );
  // Kill once a PUT has been answered and another's write is held: that one is cut off, the
  // others are answered, in flight or not yet sent.
  await Promise.all([held.reached, Promise.race(attempts)]);
  // The held write is never let through: the crash came before the database had it.
  await victim.kill();
  const outcomes = await Promise.all(attempts);
  expect(outcomes).toContain("cut off");

  let present = 0;
  for (const [index, content] of contents.entries()) {
    const response = await reader.request(`/authenticationProfiles/crash-${index}`);
    expect([200, 404]).toContain(response.status);
    if (response.status === 200) {
      present++;
      const body = (await response.json()) as { authenticationProfileContent: string };
      expect(body.authenticationProfileContent).toBe(content);
    }
    // A PUT that was answered 201 before the crash is there.
    if (outcomes[index] === 201) expect(response.status).toBe(200);
  }
  expect(present).toBeLessThanOrEqual(25);
  // The quota ledger may keep a reservation of a create the crash cut short; it must not let the
  // count pass the quota, and the service must still take creates up to it.
  const listed = (await (await reader.request("/authenticationProfiles")).json()) as { value: unknown[] };
  expect(listed.value.length).toBe(present);
});
