import { ServiceError, type TwinServiceClient } from "../../client";
import { deadLetterUrl } from "../support/delivery-kit";
import { startTestHost, type TestHost } from "../support/test-host";
import { clientFor, ENDPOINT_INPUT, instanceId, rejection } from "./fixtures";

// The client's redeliverDeadLetters against the local stack (docs/api.md#redelivering-dead-letters);
// the re-queued events themselves: test/integration/redeliver-dead-letters.test.ts.
const INSTANCE = instanceId("Redeliver-1");

let host: TestHost;
let client: TwinServiceClient;
beforeAll(async () => {
  host = await startTestHost({ ALLOW_LOOPBACK_ENDPOINTS: "true" });
  client = clientFor(host);
});
afterAll(() => host.stop());

it("answers the counts: none for an endpoint whose container is empty, with or without a window", async () => {
  await client.endpoints.put(INSTANCE, "empty", {
    ...ENDPOINT_INPUT,
    deadLetterStorageSecret: await deadLetterUrl(),
  });
  expect(await client.endpoints.redeliverDeadLetters(INSTANCE, "empty")).toEqual({
    requeued: 0,
    skipped: 0,
    failed: 0,
  });
  expect(
    await client.endpoints.redeliverDeadLetters(INSTANCE, "empty", {
      from: new Date("2026-11-01T00:00:00Z"),
      to: "2026-11-30T00:00:00Z",
      force: true,
    }),
  ).toEqual({ requeued: 0, skipped: 0, failed: 0 });
});

it("throws a ServiceError: 404 for a missing endpoint, 409 without a dead-letter secret, 400 for from after to", async () => {
  const { deadLetterStorageSecret: _none, ...withoutDeadLetters } = ENDPOINT_INPUT;
  await client.endpoints.put(INSTANCE, "no-dead-letters", withoutDeadLetters);

  const missing = await rejection(() => client.endpoints.redeliverDeadLetters(INSTANCE, "missing"));
  expect(missing).toBeInstanceOf(ServiceError);
  expect(missing).toMatchObject({ status: 404, code: "ResourceNotFound" });
  const noSecret = await rejection(() => client.endpoints.redeliverDeadLetters(INSTANCE, "no-dead-letters"));
  expect(noSecret).toMatchObject({ status: 409, code: "DeadLettersUnavailable" });
  const reversed = await rejection(() =>
    client.endpoints.redeliverDeadLetters(INSTANCE, "no-dead-letters", {
      from: "2026-11-22T12:00:00Z",
      to: "2026-11-22T00:00:00Z",
    }),
  );
  expect(reversed).toMatchObject({ status: 400, code: "InvalidRequestContent", target: "from" });
});
