// @ts-check
/**
 * A Service Bus client in a process of its own, for tests of the identity stand-ins: Node reads
 * NODE_EXTRA_CA_CERTS only at start and the SDK takes no `ca` option, so a client that must trust
 * the local TLS certificate cannot run in the Jest worker. Started with the environment it needs
 * (IDENTITY_ENDPOINT, IDENTITY_HEADER, NODE_EXTRA_CA_CERTS), it sends (and receives) as its one
 * argument (JSON) says and prints one JSON line: `{ ok: true, received? }` or `{ ok: false, error: { name, code, message } }`.
 *
 *   { "namespace": "localhost:5671", "topic": "t", "subscription": "s",
 *     "identity": "<ARM id of a user-assigned identity>" | undefined,
 *     "token": "<a fixed JWT to present instead of the credential's>" | undefined,
 *     "body": "…", "receive": true | false }
 */
const { ServiceBusClient } = require("@azure/service-bus");
const { ManagedIdentityCredential } = require("@azure/identity");

/** @param {any} command */
function credentialFor(command) {
  // A forged token: the credential interface, always answering the same token.
  if (command.token !== undefined) {
    return { getToken: async () => ({ token: command.token, expiresOnTimestamp: Date.now() + 3_600_000 }) };
  }
  return new ManagedIdentityCredential(
    command.identity === undefined ? {} : { resourceId: command.identity },
  );
}

async function main() {
  const command = JSON.parse(process.argv[2] ?? "{}");
  // No retries: a refusal must show as the broker's one answer, not an AggregateError after minutes.
  const client = new ServiceBusClient(command.namespace, credentialFor(command), {
    retryOptions: { maxRetries: 0, timeoutInMs: 10_000 },
  });
  try {
    await client.createSender(command.topic).sendMessages({ body: command.body ?? "hello" });
    let received;
    if (command.receive) {
      const receiver = client.createReceiver(command.topic, command.subscription, {
        receiveMode: "receiveAndDelete",
      });
      received = (await receiver.receiveMessages(1, { maxWaitTimeInMs: 5000 })).map(
        (message) => message.body,
      );
    }
    console.log(JSON.stringify({ ok: true, received }));
  } catch (error) {
    const { name, code, message } = /** @type {any} */ (error);
    console.log(JSON.stringify({ ok: false, error: { name, code, message } }));
  } finally {
    await client.close();
  }
}

main().catch((error) => {
  console.log(JSON.stringify({ ok: false, error: { name: "crash", message: String(error) } }));
  process.exitCode = 1;
});
