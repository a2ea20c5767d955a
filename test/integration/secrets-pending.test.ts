import { QueueClient } from "@azure/storage-queue";
import { expectArmError } from "../support/arm";
import { cloudEvent, ingest, poisonRecords, twinsInstance, waitUntil } from "../support/delivery-kit";
import { sharedStandIns } from "../support/stand-ins-env";
import { startTestHost, type TestHost } from "../support/test-host";

// A first deployment in Azure: the app starts before its Key Vault role applies, and the platform
// hands it SECRETS_ENCRYPTION_KEY as the literal reference text. The app must run all the same:
// /health says what is missing, what needs the key answers 503, everything else works, and the
// events it cannot deliver yet wait on the queue instead of reaching the poison queue.
const REFERENCE =
  "@Microsoft.KeyVault(SecretUri=https://kv-abc123.vault.azure.net/secrets/secrets-encryption-key)";
const REASON = "SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference";
const INSTANCE = twinsInstance("pending");
const ENDPOINT = `${INSTANCE}/endpoints/kept`;
const KEY = "bm90LWEtcmVhbC1rZXktYnV0LXNlY3JldC1sb29raW5n";
const endpointBody = {
  queuePrimaryConnectionString: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${KEY};EntityPath=topic`,
  queueSecondaryConnectionString: `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=${KEY}2;EntityPath=topic`,
};

let keyed: TestHost;
let pending: TestHost;

beforeAll(async () => {
  // An endpoint sealed while the key was there (a later restart that lost the key is the same case).
  keyed = await startTestHost();
  const created = await keyed.request(ENDPOINT, { method: "PUT", body: JSON.stringify(endpointBody) });
  expect(created.status).toBe(201);
  await keyed.stop();
  pending = await startTestHost({ SECRETS_ENCRYPTION_KEY: REFERENCE }, keyed.config.COSMOS_DATABASE, {
    queueTriggers: { maxDequeueCount: 2 },
  });
});
afterAll(() => pending.stop());

async function expectPending(response: Response): Promise<void> {
  const error = await expectArmError(response, 503, "ServiceUnavailable");
  expect(error.message).toContain(REASON);
  expect(error.message).not.toContain("vault.azure.net");
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
}

describe("an unresolved Key Vault reference in SECRETS_ENCRYPTION_KEY", () => {
  it("starts the app, and /health answers 503 naming the setting", async () => {
    const response = await pending.request("/health", { key: null });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBeTruthy();
    expect(await response.json()).toEqual({
      status: "unavailable",
      checks: { cosmos: "ok", storage: "ok", secrets: "unavailable" },
      reasons: { secrets: REASON },
    });
  });

  it("answers 503 with the reason for every read and write of an endpoint's secrets", async () => {
    await expectPending(await pending.request(ENDPOINT));
    await expectPending(await pending.request(`${INSTANCE}/endpoints`));
    await expectPending(
      await pending.request(ENDPOINT, { method: "PUT", body: JSON.stringify(endpointBody) }),
    );
    await expectPending(
      await pending.request(`${INSTANCE}/endpoints/new`, {
        method: "PUT",
        body: JSON.stringify(endpointBody),
      }),
    );
    await expectPending(
      await pending.request(ENDPOINT, {
        method: "PATCH",
        body: JSON.stringify({ queueSecondaryConnectionString: endpointBody.queuePrimaryConnectionString }),
      }),
    );
    await expectPending(
      await pending.request(`${ENDPOINT}/redeliverDeadLetters?api-version=2026-11-01`, { method: "POST" }),
    );
    // Nothing was written: the endpoint the refused PUT named does not exist (which takes no key to say).
    await expectArmError(await pending.request(`${INSTANCE}/endpoints/new`), 404, "ResourceNotFound");
  });

  it("keeps what needs no secret working: profiles, an instance without endpoints, ingest", async () => {
    const profile = await pending.request("/authenticationProfiles/pending-profile", {
      method: "PUT",
      body: JSON.stringify({ authenticationProfileContent: '{"Client_ID":"pending"}' }),
    });
    expect(profile.status).toBe(201);
    expect((await pending.request("/authenticationProfiles/pending-profile")).status).toBe(200);
    expect((await pending.request(`${twinsInstance("other")}/endpoints`)).status).toBe(200);
    const other = `${twinsInstance("other")}/events`;
    const ingested = await pending.request(other, {
      method: "POST",
      body: JSON.stringify([cloudEvent("no-endpoint")]),
      headers: { "content-type": "application/cloudevents-batch+json" },
    });
    expect(ingested.status).toBe(202);
  });

  it("defers the events it cannot deliver: back on the queue, not on the poison queue", async () => {
    const mainQueue = new QueueClient(
      sharedStandIns().storageConnectionString,
      pending.config.TWIN_EVENTS_QUEUE,
    );
    const deferred = () =>
      pending.logs
        .filter((entry) => entry.message.startsWith("twin events deferred:"))
        .map((entry) => entry.message);
    const failedInvocations = () =>
      pending.logs.filter((entry) => entry.functionName === "twinEvents-deliver" && entry.level === "error");
    await ingest(pending, INSTANCE, [cloudEvent("waits-for-the-key")]);
    // This message and the one ingested for an instance without endpoints, above: each once.
    await waitUntil(
      () => deferred().length >= 2 || failedInvocations().length > 0,
      undefined,
      "both messages deferred",
    );
    // A stop lets the running invocations finish and settle their messages, and nothing polls
    // after it: what is on the queue now stays as they left it. A failed invocation would have left
    // its original on the queue (for a retry after the 1 s visibility timeout), a copy sent without
    // its delay would be in sight; the deferred copies are there and out of sight.
    await pending.stop();
    expect(failedInvocations()).toEqual([]);
    expect(deferred()).toEqual(
      Array(2).fill(
        `twin events deferred: ${REASON}; the message is back on ${pending.config.TWIN_EVENTS_QUEUE} in 60 s`,
      ),
    );
    expect(await poisonRecords(pending)).toEqual([]);
    expect((await mainQueue.getProperties()).approximateMessagesCount).toBe(2);
    expect((await mainQueue.peekMessages({ numberOfMessages: 32 })).peekedMessageItems).toEqual([]);
    expect(pending.logs.map((entry) => entry.message).join("\n")).not.toContain("vault.azure.net");
  });

  it("lets an endpoint be deleted, which needs no key", async () => {
    // The host before was stopped to look at its queue; this one runs no queue trigger.
    pending = await startTestHost({ SECRETS_ENCRYPTION_KEY: REFERENCE }, keyed.config.COSMOS_DATABASE);
    expect((await pending.request(ENDPOINT, { method: "DELETE" })).status).toBe(200);
  });
});
