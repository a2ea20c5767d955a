import type { QueueClient } from "@azure/storage-queue";
import { poisonQueueName } from "../../src/common/poison-queue";
import { type OptionSpec, stringOption, UsageError, wholeNumberOption } from "./args";
import type { CommandContext, CommandSpec, GroupSpec } from "./command-spec";
import { EXIT } from "./exit-codes";
import { requireLocalEnv } from "./local-env";
import { shorten, table } from "./output";
import { HOST_GAVE_UP, type PoisonSummary, readPoisonMessage } from "./poison-records";
import {
  givenAccess,
  localAccess,
  STORAGE_RETRY,
  type StorageAccess,
  storageFailure,
  urlSecrets,
} from "./storage-access";

/**
 * `twin poison`: the service's poison queue, `<queue>-poison`, read and put back on the main
 * queue with the operator's own access to the service's storage account.
 */

const QUEUE_SERVICE_URL: OptionSpec = {
  name: "queue-service-url",
  type: "string",
  value: "url",
  description:
    "the service's queue service: https://<account>.queue.core.windows.net with DefaultAzureCredential, or a SAS URL of it; --local: the stack's Azurite",
};
const QUEUE: OptionSpec = {
  name: "queue",
  type: "string",
  value: "name",
  description: "the main queue, the TWIN_EVENTS_QUEUE setting (default twin-events; --local: the stack's)",
};
const COUNT: OptionSpec = {
  name: "count",
  type: "string",
  value: "n",
  description: "how many to peek at, 1 to 32 (default 32)",
};
const ALL: OptionSpec = {
  name: "all",
  type: "boolean",
  description: "every message (of --reason, if given)",
};
const POISON_REASON: OptionSpec = {
  name: "reason",
  type: "string",
  value: "reason",
  description: `only records of this reason, exactly (NoDeadLetterSecret, DeadLetterWriteFailed, …; "${HOST_GAVE_UP}" for messages the host moved)`,
};

export const POISON_OPTIONS = [QUEUE_SERVICE_URL, QUEUE, COUNT, ALL];

/** How long received messages stay hidden while a requeue runs; they are made visible again at its end. */
const HIDDEN_SECONDS = 300;
/** What DeliveryQueues writes: nothing the service queues expires. */
const NEVER_EXPIRES = -1;

interface Queues {
  access: StorageAccess;
  main: QueueClient;
  poison: QueueClient;
}

async function queues(context: CommandContext): Promise<Queues> {
  const given = stringOption(context.values, "queue-service-url", context.usage);
  let access: StorageAccess;
  let localQueue: string | undefined;
  if (given !== undefined) {
    for (const secret of urlSecrets(given)) context.secret(secret);
    access = await givenAccess(given, "--queue-service-url");
  } else if (context.values.local === true) {
    access = localAccess(context.values, context.cwd, "QUEUE_SERVICE_URL", "--queue-service-url");
    for (const secret of urlSecrets(access.url)) context.secret(secret);
    localQueue = localQueueName(context);
  } else {
    throw new UsageError("--queue-service-url is required (or --local).", context.usage);
  }
  const name = stringOption(context.values, "queue", context.usage) ?? localQueue ?? "twin-events";
  const { QueueServiceClient } = await import("@azure/storage-queue");
  const service = new QueueServiceClient(access.url, access.credential, {
    ...access.pipeline,
    retryOptions: STORAGE_RETRY,
  });
  try {
    return {
      access,
      main: service.getQueueClient(name),
      poison: service.getQueueClient(poisonQueueName(name)),
    };
  } catch {
    // The SDK reads the account from the first segment of a path-style (IP address) URL.
    throw new UsageError(
      `--queue-service-url must be an account's queue service (on an IP address: http://127.0.0.1:<port>/<account>): ${access.shown}`,
      context.usage,
    );
  }
}

function localQueueName(context: CommandContext): string | undefined {
  return requireLocalEnv(context.cwd, stringOption(context.values, "local-env")).values.STACK_EVENTS_QUEUE;
}

function countOption(context: CommandContext): number {
  return wholeNumberOption(context.values, "count", 32, context.usage) ?? 32;
}

function summaryCells(summary: PoisonSummary): string[] {
  const events =
    summary.events === undefined ? "-" : `${summary.events}${summary.compressed ? " (gzip)" : ""}`;
  return [
    summary.reason,
    summary.twinsInstanceId ?? "-",
    events,
    shorten(summary.lastError ?? summary.detail ?? "-", 60),
  ];
}

const peek: CommandSpec = {
  name: "peek",
  summary: "show the poison queue's first records, leaving them in place",
  description:
    'Each record: its message id, when it was queued, its dequeue count, its reason ("host gave up": a message the Functions host moved after maxDequeueCount failed runs), instance, events, and its last error or detail. Needs Storage Queue Data Reader (or a SAS with sp=r).',
  calls: "storage",
  options: [QUEUE_SERVICE_URL, QUEUE, COUNT],
  examples: [
    "twin poison peek --queue-service-url https://<account>.queue.core.windows.net",
    "twin poison peek --local --count 5 --output json",
  ],
  async run(context) {
    const count = countOption(context);
    const { access, poison } = await queues(context);
    let items: Awaited<ReturnType<QueueClient["peekMessages"]>>["peekedMessageItems"];
    try {
      items = (await poison.peekMessages({ numberOfMessages: count })).peekedMessageItems;
    } catch (error) {
      throw storageFailure(
        error,
        `peek at ${poison.name} of`,
        access,
        "read (Storage Queue Data Reader, or sp=r)",
      );
    }
    const records = items.map((item) => ({
      messageId: item.messageId,
      insertedOn: item.insertedOn.toISOString(),
      dequeueCount: item.dequeueCount,
      ...readPoisonMessage(item.messageText).summary,
    }));
    const rows = records.map((record) => [
      record.messageId,
      record.insertedOn,
      String(record.dequeueCount),
      ...summaryCells(record),
    ]);
    const text =
      records.length === 0
        ? `No messages in ${poison.name}.`
        : table(
            ["message id", "inserted", "dequeues", "reason", "instance", "events", "last error / detail"],
            rows,
          );
    return { json: records, text };
  },
};

type RequeueOutcome = "requeued" | "left" | "not found";

interface RequeueLine {
  messageId: string;
  outcome: RequeueOutcome;
  reason?: string;
  why?: string;
}

/** Every message of the poison queue, received (hidden) once each, until it gives no new one. */
async function* receiveAll(poison: QueueClient, wanted: Set<string> | undefined) {
  const seen = new Set<string>();
  for (;;) {
    const { receivedMessageItems } = await poison.receiveMessages({
      numberOfMessages: 32,
      visibilityTimeout: HIDDEN_SECONDS,
    });
    const fresh = receivedMessageItems.filter((item) => !seen.has(item.messageId));
    if (fresh.length === 0) return;
    for (const item of fresh) {
      seen.add(item.messageId);
      yield item;
    }
    if (wanted !== undefined && [...wanted].every((id) => seen.has(id))) return;
  }
}

const requeue: CommandSpec = {
  name: "requeue",
  args: "[--all | <messageId>...]",
  positionals: Number.POSITIVE_INFINITY,
  summary: "put poison records back on the main queue, then delete them from the poison queue",
  description:
    "A record's {twinsInstanceId, events|eventsGzip} goes back on the main queue (base64 JSON, never expiring), a message the host moved goes back as it is; only then is it deleted from the poison queue (at least once: never lost). A record that holds no events (eventLeftOut, an InvalidMessage without a usable message) is left in place and reported. Exit 1 if anything asked for was not requeued. Needs Storage Queue Data Contributor (or a SAS with sp=raup).",
  calls: "storage",
  options: [QUEUE_SERVICE_URL, QUEUE, ALL, POISON_REASON],
  examples: [
    "twin poison requeue --all --reason NoDeadLetterSecret --queue-service-url https://<account>.queue.core.windows.net",
    "twin poison requeue 5b7e…-message-id --local",
  ],
  async run(context) {
    const ids = context.positionals.map((id) => id.trim()).filter((id) => id !== "");
    const all = context.values.all === true;
    if (all === ids.length > 0) {
      throw new UsageError(
        "Give --all or the message ids (as `poison peek` shows them), not both.",
        context.usage,
      );
    }
    const reason = stringOption(context.values, "reason", context.usage);
    const wanted = all ? undefined : new Set(ids);
    const { access, main, poison } = await queues(context);
    const lines: RequeueLine[] = [];
    const release: { messageId: string; popReceipt: string }[] = [];
    let step = `receive from ${poison.name} of`;
    try {
      for await (const item of receiveAll(poison, wanted)) {
        const reading = readPoisonMessage(item.messageText);
        const asked =
          (wanted === undefined || wanted.has(item.messageId)) &&
          (reason === undefined || reading.summary.reason === reason);
        if (!asked || reading.requeueText === undefined) {
          release.push(item);
          if (asked)
            lines.push({
              messageId: item.messageId,
              outcome: "left",
              reason: reading.summary.reason,
              why: reading.whyNot ?? "",
            });
          continue;
        }
        step = `send to ${main.name} of`;
        await main.sendMessage(reading.requeueText, { messageTimeToLive: NEVER_EXPIRES });
        step = `delete from ${poison.name} of`;
        await poison.deleteMessage(item.messageId, item.popReceipt);
        lines.push({ messageId: item.messageId, outcome: "requeued", reason: reading.summary.reason });
        step = `receive from ${poison.name} of`;
      }
      step = `make messages visible again in ${poison.name} of`;
      // The ones not requeued are visible at once again, not after HIDDEN_SECONDS.
      for (const item of release) await poison.updateMessage(item.messageId, item.popReceipt, undefined, 0);
    } catch (error) {
      const failure = storageFailure(
        error,
        step,
        access,
        "Storage Queue Data Contributor (or a SAS with sp=raup)",
      );
      // Sent but not deleted: it shows again in a few minutes, and requeuing it again repeats its events.
      if (step.startsWith("delete") && failure instanceof Error) {
        failure.message += "; its events were requeued, but the record stays in the poison queue";
      }
      throw failure;
    }
    for (const id of wanted ?? []) {
      if (!lines.some((line) => line.messageId === id)) {
        lines.push({ messageId: id, outcome: "not found", why: `no such message in ${poison.name}` });
      }
    }
    const counts = {
      requeued: lines.filter((line) => line.outcome === "requeued").length,
      left: lines.filter((line) => line.outcome === "left").length,
      notFound: lines.filter((line) => line.outcome === "not found").length,
    };
    const summary = `requeued ${counts.requeued} to ${main.name}, left ${counts.left}, not found ${counts.notFound}`;
    const rows = lines.map((line) => [line.messageId, line.outcome, line.reason ?? "-", line.why ?? ""]);
    return {
      json: { ...counts, messages: lines },
      text:
        lines.length === 0
          ? summary
          : `${table(["message id", "outcome", "reason", "why"], rows)}\n\n${summary}`,
      ...(counts.left + counts.notFound > 0 && { exitCode: EXIT.service }),
    };
  },
};

export const poison: GroupSpec = {
  name: "poison",
  summary: "the service's poison queue: peek at its records, put their events back on the main queue",
  commands: [peek, requeue],
};
