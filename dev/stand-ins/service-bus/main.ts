import { exitOnFailure, reportReady, stopOnSignal } from "../../child-lifecycle";
import { loadOrCreateLocalTls } from "../../local-tls";
import { readPort } from "../../stack-plan";
import { StartupError } from "../../startup-error";
import { KEYS_PATH } from "../managed-identity/server";
import { startServiceBusStandIn } from "./index";

/**
 * The Service Bus stand-in as a process of its own (started by the launcher, or by hand): listens
 * on SERVICEBUS_PORT (default 5672, plain AMQP) and SERVICEBUS_TLS_PORT (default 5671, AMQPS with
 * the local certificate) until SIGTERM / SIGINT. Entra ID tokens are checked against the key set
 * of the managed-identity stand-in on IDENTITY_PORT; SERVICEBUS_DATA_SENDERS (comma-separated
 * principal ids) hold the sender role. Messages live in memory only.
 */
const NAME = "Service Bus stand-in";

async function main(): Promise<void> {
  const port = readPort(process.env, "SERVICEBUS_PORT");
  const tlsPort = readPort(process.env, "SERVICEBUS_TLS_PORT");
  const tls = await loadOrCreateLocalTls();
  const starting = startServiceBusStandIn({
    port,
    tls: { port: tlsPort, cert: tls.cert, key: tls.key },
    tokens: {
      jwksUri: `http://127.0.0.1:${readPort(process.env, "IDENTITY_PORT")}${KEYS_PATH}`,
      senders: (process.env.SERVICEBUS_DATA_SENDERS ?? "").split(",").filter((id) => id.trim() !== ""),
    },
    log: (line) => console.error(`${NAME}: ${line}`),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE") throw error;
    const variables = "set SERVICEBUS_PORT or SERVICEBUS_TLS_PORT to another port";
    throw new StartupError(`Port ${port} or ${tlsPort} is already in use; ${variables}.`);
  });
  stopOnSignal(NAME, async () => {
    const standIn = await starting.catch(() => undefined);
    await standIn?.close();
  });
  const standIn = await starting;
  // SERVICEBUS_SUBSCRIPTIONS="topic/subscription,…" makes subscriptions at start, so they keep what
  // is sent before any receiver attaches (the stand-in keeps nothing across a restart).
  for (const entry of (process.env.SERVICEBUS_SUBSCRIPTIONS ?? "").split(",")) {
    const [topic, subscription, ...rest] = entry.trim().split("/");
    if (topic && subscription && rest.length === 0) standIn.ensureSubscription(topic, subscription);
  }
  console.log(
    `${NAME}: listening on sb://127.0.0.1:${standIn.port}/ (AMQP without TLS: UseDevelopmentEmulator=true) and sb://localhost:${standIn.tlsPort}/ (AMQPS)`,
  );
  reportReady();
}

main().catch(exitOnFailure(NAME));
