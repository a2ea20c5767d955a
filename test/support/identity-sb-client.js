// @ts-check
/**
 * A Service Bus client in a process of its own, for tests of the identity stand-ins: Node reads
 * NODE_EXTRA_CA_CERTS only at start and the SDK takes no `ca` option, so a client that must trust
 * the local TLS certificate cannot run in the Jest worker. Started with the environment it needs
 * (IDENTITY_ENDPOINT, IDENTITY_HEADER, NODE_EXTRA_CA_CERTS), it does what its one argument (JSON)
 * says and prints one JSON line: `{ ok: true, ... }` or `{ ok: false, error: { name, code, message }, ms }`.
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
  if (command.token !== undefined) {
    // A forged token: the credential interface, always answering the same token.
    return {
      getToken: async () => ({ token: command.token, expiresOnTimestamp: Date.now() + 3_600_000 }),
    };
  }
  return command.identity === undefined
    ? new ManagedIdentityCredential()
    : new ManagedIdentityCredential({ resourceId: command.identity });
}

async function main() {
  const command = JSON.parse(process.argv[2] ?? "{}");
  const started = Date.now();
  const client = new ServiceBusClient(command.namespace, credentialFor(command), {
    // Fail fast: a refusal the SDK retries would otherwise take minutes.
    retryOptions: {
      maxRetries: command.maxRetries ?? 0,
      retryDelayInMs: command.retryDelayInMs ?? 200,
      timeoutInMs: 10_000,
    },
  });
  try {
    const sender = client.createSender(command.topic);
    await sender.sendMessages({ body: command.body ?? "hello" });
    await sender.close();
    let received;
    if (command.receive) {
      const receiver = client.createReceiver(command.topic, command.subscription, {
        receiveMode: "receiveAndDelete",
      });
      const messages = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5000 });
      received = messages.map((message) => message.body);
      await receiver.close();
    }
    console.log(JSON.stringify({ ok: true, received, ms: Date.now() - started }));
  } catch (error) {
    const { name, code, message, errors } = /** @type {any} */ (error);
    const each = (errors ?? []).map((/** @type {any} */ inner) => ({
      name: inner.name,
      code: inner.code,
      message: inner.message,
    }));
    console.log(
      JSON.stringify({
        ok: false,
        error: { name, code, message, ...(errors && { errors: each }) },
        ms: Date.now() - started,
      }),
    );
  } finally {
    await client.close();
  }
}

main().catch((error) => {
  console.log(JSON.stringify({ ok: false, error: { name: "crash", message: String(error) } }));
  process.exitCode = 1;
});
