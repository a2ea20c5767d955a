import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";
import { type CommandSpec, commandLine, exitCodeOf } from "./cli-options";
import { EXAMPLE_SUBSCRIPTION, EXAMPLE_TOPIC } from "./example-topic";
import { stackOrGivenValue } from "./running-stack";
import { describeFailure, StartupError } from "./startup-error";

/**
 * `npm run receive -- [topic] [subscription] [--count N] [--timeout S]`: prints each message that
 * arrives on a topic's subscription (and completes it), until Ctrl+C, N messages, or S seconds.
 * The connection is the Service Bus stand-in of the stack `npm start` runs (SERVICEBUS_CONNECTION
 * in `.local/local.env`, whatever port it took; refused when no stack runs), or a namespace of
 * your own: SERVICEBUS_CONNECTION in the environment naming a host other than loopback.
 */
const COMMAND = {
  command: "npm run receive",
  summary:
    "Prints each message that arrives on a topic's subscription of the running stack's Service Bus stand-in\n(or SERVICEBUS_CONNECTION's namespace), and completes it, until Ctrl+C, --count or --timeout.",
  arguments: [
    { name: "topic", description: `the topic (default ${EXAMPLE_TOPIC})` },
    { name: "subscription", description: `its subscription (default ${EXAMPLE_SUBSCRIPTION})` },
  ],
  numbers: {
    count: { placeholder: "N", description: "stop after N messages; fails if fewer arrive" },
    timeout: { placeholder: "SECONDS", description: "stop after SECONDS seconds" },
  },
  examples: [
    "npm run receive -- --count 1 --timeout 5",
    `npm run receive -- ${EXAMPLE_TOPIC} ${EXAMPLE_SUBSCRIPTION}`,
  ],
} satisfies CommandSpec<"count" | "timeout", never>;

/** The host of `Endpoint=sb://host[:port]/`, if the connection string has one. */
function serviceBusHost(connection: string): string | undefined {
  const endpoint = /(?:^|;)\s*Endpoint\s*=\s*sb:\/\/([^/;]+)/i.exec(connection)?.[1];
  return endpoint === undefined || !URL.canParse(`sb://${endpoint}`)
    ? undefined
    : new URL(`sb://${endpoint}`).hostname;
}

async function connectionString(): Promise<string> {
  const { value, stack } = await stackOrGivenValue("SERVICEBUS_CONNECTION", serviceBusHost);
  if (value === undefined) {
    throw new StartupError(
      `${stack?.file ?? "The environment"} has no SERVICEBUS_CONNECTION: restart the stack (Ctrl+C, then npm start), or set SERVICEBUS_CONNECTION to a connection string of your namespace.`,
    );
  }
  // The topic is named on the command line; an EntityPath naming another one would be refused.
  return value
    .split(";")
    .filter((part) => !/^\s*EntityPath\s*=/i.test(part))
    .join(";");
}

function bodyText(body: unknown): string {
  if (Buffer.isBuffer(body)) return body.toString("utf8");
  return typeof body === "string" ? body : JSON.stringify(body);
}

function print(message: ServiceBusReceivedMessage): void {
  console.log(`message ${String(message.messageId)}`);
  console.log(`  contentType  ${message.contentType ?? "-"}`);
  console.log(`  properties   ${JSON.stringify(message.applicationProperties ?? {})}`);
  console.log(`  body         ${bodyText(message.body)}`);
}

async function main(): Promise<void> {
  const { positionals, numbers } = commandLine(COMMAND);
  const [topic = EXAMPLE_TOPIC, subscription = EXAMPLE_SUBSCRIPTION] = positionals;
  const { count, timeout } = numbers;
  const deadline = timeout === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeout * 1000;

  const client = new ServiceBusClient(await connectionString());
  const receiver = client.createReceiver(topic, subscription);
  let stopped = false;
  process.once("SIGINT", () => {
    stopped = true;
  });
  console.log(
    `Receiving from ${topic}/Subscriptions/${subscription}${timeout === undefined ? " (Ctrl+C stops)" : ` for at most ${timeout} s`}...`,
  );
  let received = 0;
  try {
    while (!stopped && (count === undefined || received < count) && Date.now() < deadline) {
      const wanted = count === undefined ? 10 : Math.min(10, count - received);
      const messages = await receiver.receiveMessages(wanted, {
        maxWaitTimeInMs: Math.max(1, Math.min(1000, deadline - Date.now())),
      });
      for (const message of messages) {
        print(message);
        await receiver.completeMessage(message);
        received++;
      }
    }
  } finally {
    await receiver.close();
    await client.close();
  }
  console.log(`${received} message${received === 1 ? "" : "s"} received.`);
  if (count !== undefined && received < count) {
    console.error(`Expected ${count} within ${timeout} s.`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(describeFailure(error));
  process.exitCode = exitCodeOf(error);
});
