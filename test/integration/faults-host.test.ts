import { freePort } from "../../dev/ports";
import { type BuiltProcess, startBuiltProcess } from "../support/built-process";
import { startTestHost, type TestHost } from "../support/test-host";

// The host killed (SIGKILL) while PUTs are in flight: afterwards each resource is either fully
// written or absent, never half-written, and the count quota still holds.
let reader: TestHost;
let victim: BuiltProcess | undefined;

beforeAll(async () => {
  reader = await startTestHost({ AUTH_PROFILE_MAX_COUNT: "25" });
});

afterAll(async () => {
  await victim?.kill();
  await reader.stop();
});

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
  // Kill as soon as the first PUT has been answered: the others are in flight or not yet sent.
  await Promise.race(attempts);
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
