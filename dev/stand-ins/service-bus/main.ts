import { exitOnFailure, reportReady, stopOnSignal } from "../../child-lifecycle";
import { readPort } from "../../stack-plan";
import { StartupError } from "../../startup-error";
import { startServiceBusStandIn } from "./index";

/**
 * The Service Bus stand-in as a process of its own (started by the launcher, or by hand): listens
 * on SERVICEBUS_PORT (default 5672) until SIGTERM / SIGINT. Messages live in memory only.
 */
const NAME = "Service Bus stand-in";

/**
 * SERVICEBUS_SUBSCRIPTIONS="topic/subscription,…" creates subscriptions at start, so they keep what
 * is sent before any receiver attaches (the stand-in keeps nothing across a restart).
 */
function presetSubscriptions(setting: string | undefined): { topic: string; subscription: string }[] {
  return (setting ?? "")
    .split(",")
    .map((entry) => entry.trim().split("/"))
    .filter((parts): parts is [string, string] => parts.length === 2 && parts.every((part) => part !== ""))
    .map(([topic, subscription]) => ({ topic, subscription }));
}

async function main(): Promise<void> {
  const port = readPort(process.env, "SERVICEBUS_PORT");
  const starting = startServiceBusStandIn({ port, log: (line) => console.error(`${NAME}: ${line}`) }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") {
        throw new StartupError(`Port ${port} is already in use; set SERVICEBUS_PORT to another port.`);
      }
      throw error;
    },
  );
  stopOnSignal(NAME, async () => {
    const standIn = await starting.catch(() => undefined);
    await standIn?.close();
  });
  const standIn = await starting;
  for (const { topic, subscription } of presetSubscriptions(process.env.SERVICEBUS_SUBSCRIPTIONS)) {
    standIn.ensureSubscription(topic, subscription);
  }
  console.log(
    `${NAME}: listening on sb://127.0.0.1:${standIn.port}/ (AMQP without TLS: UseDevelopmentEmulator=true)`,
  );
  reportReady();
}

main().catch(exitOnFailure(NAME));
