import { ServiceBusClient, type ServiceBusReceivedMessage } from "@azure/service-bus";
import { type ParsedLine, type SmallCommand, wholeNumberOption } from "../client/cli/args";
import { EXAMPLE_SUBSCRIPTION, EXAMPLE_TOPIC } from "./example-topic";
import { runHelper } from "./helper-command";
import { runningStack } from "./running-stack";
import { StartupError } from "./startup-error";

const COMMAND: SmallCommand = {
  command: "npm run receive",
  summary:
    "Prints each message that arrives on a topic's subscription of the running stack's Service Bus stand-in\n(or SERVICEBUS_CONNECTION's namespace), and completes it, until Ctrl+C, --count or --timeout.",
  arguments: [
    { name: "topic", description: `the topic (default ${EXAMPLE_TOPIC})` },
    { name: "subscription", description: `its subscription (default ${EXAMPLE_SUBSCRIPTION})` },
  ],
  options: [
    { name: "count", type: "string", value: "N", description: "stop after N messages; fails if fewer come" },
    { name: "timeout", type: "string", value: "SECONDS", description: "stop after SECONDS seconds" },
  ],
  examples: [
    "npm run receive -- --count 1 --timeout 5",
    `npm run receive -- ${EXAMPLE_TOPIC} ${EXAMPLE_SUBSCRIPTION}`,
  ],
};

/**
 * SERVICEBUS_CONNECTION from the environment when it names a host other than loopback (a namespace
 * of your own); else the running stack's: a loopback one is a local stack's, maybe one since
 * stopped or moved, so the file's wins.
 */
async function connectionString(): Promise<string> {
  const given = process.env.SERVICEBUS_CONNECTION?.trim() ?? "";
  const endpoint = /(?:^|;)\s*Endpoint\s*=\s*sb:\/\/([^/;]+)/i.exec(given)?.[1] ?? "";
  const host = URL.canParse(`sb://${endpoint}`) ? new URL(`sb://${endpoint}`).hostname.toLowerCase() : "";
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(host);
  const stack = given === "" || loopback ? await runningStack() : undefined;
  const value = stack ? stack.values.SERVICEBUS_CONNECTION : given;
  if (value === undefined) {
    throw new StartupError(
      `${stack?.file} has no SERVICEBUS_CONNECTION: restart the stack (Ctrl+C, then npm start), or set SERVICEBUS_CONNECTION to a connection string of your namespace.`,
    );
  }
  // The topic is named on the command line; an EntityPath naming another one would be refused.
  return value
    .split(";")
    .filter((part) => !/^\s*EntityPath\s*=/i.test(part))
    .join(";");
}

function print({ messageId, contentType, applicationProperties, body }: ServiceBusReceivedMessage): void {
  const text = Buffer.isBuffer(body) ? String(body) : typeof body === "string" ? body : JSON.stringify(body);
  console.log(`message ${String(messageId)}`);
  console.log(`  contentType  ${contentType ?? "-"}`);
  console.log(`  properties   ${JSON.stringify(applicationProperties ?? {})}`);
  console.log(`  body         ${text}`);
}

async function main({ positionals, values }: ParsedLine): Promise<void> {
  const [topic = EXAMPLE_TOPIC, subscription = EXAMPLE_SUBSCRIPTION] = positionals;
  const count = wholeNumberOption(values, "count");
  const timeout = wholeNumberOption(values, "timeout");
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
  if (count !== undefined && received < count)
    throw new StartupError(`Expected ${count} within ${timeout} s.`);
}

runHelper(COMMAND, main);
