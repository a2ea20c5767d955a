import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { type QueueClient, QueueServiceClient, type ReceivedMessageItem } from "@azure/storage-queue";
import { describeError } from "../src/common/describe-error";
import { poisonQueueName } from "../src/common/poison-queue";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../src/store/storage-deadline";
import type { RpcTypedData } from "./functions-worker";
import type { HostSettings } from "./host-json";
import { consoleLogger, type HostLogger } from "./host-logger";
import { decodeQueueMessage, queueTriggerMetadata } from "./queue-trigger-message";

export interface QueueTriggerOptions {
  /** The storage connection string (the AzureWebJobsStorage setting). */
  connectionString: string;
  queueName: string;
  functionName: string;
  /** Invokes the function with one message's decoded text and the binding data the host sends with it. */
  handler: (
    text: string,
    triggerMetadata: Record<string, RpcTypedData>,
    invocationId: string,
  ) => Promise<void>;
  /** host.json's extensions.queues, from readHostSettings(). */
  settings: HostSettings["queues"];
  /** How long a message stays invisible while being processed; renewed while the handler runs. Default 60 s. */
  lockSeconds?: number;
  /** How long stop() waits for running handlers before leaving their messages to their locks. Default 30 s. */
  stopTimeoutSeconds?: number;
  /** How long one call to the queue service may take before it is abandoned. Default STORAGE_CALL_DEADLINE_MS. */
  storageDeadlineMs?: number;
  log?: HostLogger;
}

export interface QueueTrigger {
  /** Stops polling and waits (bounded) for running handlers to finish and settle their messages. */
  stop(): Promise<void>;
}

/** The storage service's limit on messages per receive, which the real host enforces on batchSize. */
const MAX_BATCH_SIZE = 32;
/** The longest delay a Node timer (and so AbortSignal.timeout) keeps: about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const errorCode = (error: unknown) => (error as { code?: unknown } | null)?.code;
const isQueueNotFound = (error: unknown) => errorCode(error) === "QueueNotFound";
/** This host no longer owns the message: the errors the real listener ignores when settling or renewing one. */
const OWNERSHIP_LOST = new Set(
  "PopReceiptMismatch MessageNotFound QueueNotFound QueueBeingDeleted QueueDisabled".split(" "),
);
const isOwnershipLost = (error: unknown) => OWNERSHIP_LOST.has(errorCode(error) as string);

/**
 * How long an idle listener waits before polling again, as the WebJobs
 * RandomizedExponentialBackoffStrategy does: back to the minimum (100 ms) after a poll found
 * messages, otherwise roughly doubling (±20 %) up to host.json's maxPollingInterval.
 */
export class PollingBackoff {
  private readonly minimumMs: number;
  private currentMs: number;
  private exponent = 0;
  constructor(private readonly maximumMs: number) {
    this.currentMs = this.minimumMs = Math.min(100, maximumMs);
  }

  nextDelayMs(foundMessagesSinceLastDelay: boolean): number {
    if (foundMessagesSinceLastDelay) {
      this.currentMs = this.minimumMs;
      this.exponent = 1;
    } else if (this.currentMs !== this.maximumMs) {
      const jitter = 0.8 + Math.random() * 0.4;
      const backoffMs =
        this.minimumMs + (this.exponent > 0 ? jitter * 2 ** (this.exponent - 1) * this.minimumMs : 0);
      this.currentMs = Math.min(backoffMs, this.maximumMs);
      if (backoffMs < this.maximumMs) this.exponent++;
    }
    return this.currentMs;
  }
}

/**
 * Keeps a message invisible while its handler runs, renewing it halfway to expiry as the real
 * listener's visibility timer does, each renewal within the storage deadline but never past half the
 * lock; after a transient failure it retries sooner (LinearSpeedupStrategy), after a lost ownership
 * it stops. popReceipt is the latest (only it can settle the message); stop() waits for a renewal
 * in flight, so popReceipt is final.
 */
export function holdMessageLock(options: {
  queue: QueueClient;
  messageId: string;
  popReceipt: string;
  lockSeconds: number;
  storageDeadlineMs: number;
  onRenewalFailed(error: unknown, ownershipLost: boolean): void;
}) {
  const normalMs = (options.lockSeconds * 1000) / 2;
  let popReceipt = options.popReceipt;
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  let renewal: Promise<void> = Promise.resolve();
  const schedule = (delayMs: number) => {
    if (!stopped) timer = setTimeout(renew, delayMs);
  };
  function renew(): void {
    renewal = options.queue
      .updateMessage(options.messageId, popReceipt, undefined, options.lockSeconds, {
        abortSignal: storageDeadline(Math.min(options.storageDeadlineMs, normalMs)),
      })
      .then((response) => {
        if (response.popReceipt !== undefined) popReceipt = response.popReceipt;
        failures = 0;
        schedule(normalMs);
      })
      .catch((error: unknown) => {
        const lost = isOwnershipLost(error);
        options.onRenewalFailed(error, lost);
        if (!lost) schedule(Math.max(normalMs / (++failures + 1), normalMs / 5));
      });
  }
  schedule(normalMs);
  return {
    get popReceipt() {
      return popReceipt;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await renewal;
    },
  };
}

function validate(options: QueueTriggerOptions, lockSeconds: number, deadlineMs: number): void {
  const { batchSize, newBatchThreshold, maxDequeueCount, visibilityTimeoutSeconds } = options.settings;
  const problems = [
    !(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= MAX_BATCH_SIZE) &&
      `batchSize must be 1..${MAX_BATCH_SIZE}`,
    !(Number.isInteger(newBatchThreshold) && newBatchThreshold >= 0) && "newBatchThreshold must be 0 or more",
    !(Number.isInteger(maxDequeueCount) && maxDequeueCount >= 1) && "maxDequeueCount must be 1 or more",
    !(visibilityTimeoutSeconds >= 0) && "visibilityTimeout must not be negative",
    !(lockSeconds >= 1) && "lockSeconds must be 1 or more",
    !(deadlineMs >= 1 && deadlineMs <= MAX_TIMER_MS) &&
      `storageDeadlineMs must be 1..${MAX_TIMER_MS} milliseconds`,
  ].filter((problem) => typeof problem === "string");
  if (problems.length > 0) throw new Error(`queue trigger '${options.functionName}': ${problems.join("; ")}`);
}

/**
 * The local host's storage queue trigger, following the real one (the WebJobs QueueListener and
 * QueueProcessor): poll in batches of batchSize, fetch the next batch once no more than
 * newBatchThreshold handlers run, back off while the queue is empty, retry failures after
 * visibilityTimeout and move a message to `<queue>-poison` at maxDequeueCount. A message is deleted
 * only after its handler succeeds, so a process that dies mid-handler loses nothing: the message
 * reappears when its lock expires. Resolves once both queues exist and polling has started.
 */
export async function startQueueTrigger(options: QueueTriggerOptions): Promise<QueueTrigger> {
  const { functionName, settings, handler } = options;
  const lockSeconds = options.lockSeconds ?? 60;
  const deadlineMs = options.storageDeadlineMs ?? STORAGE_CALL_DEADLINE_MS;
  validate(options, lockSeconds, deadlineMs);
  const log = options.log ?? consoleLogger;
  const say = (level: "warning" | "error", message: string) => log(level, functionName, message);
  const service = QueueServiceClient.fromConnectionString(options.connectionString);
  const queue = service.getQueueClient(options.queueName);
  const poisonQueue = service.getQueueClient(poisonQueueName(options.queueName));
  const stopping = new AbortController();
  /** One storage call's options: its own deadline, or stop() when polling, whichever comes first. */
  const within = (orStop = false) => {
    const deadline = storageDeadline(deadlineMs);
    return { abortSignal: orStop ? AbortSignal.any([deadline, stopping.signal]) : deadline };
  };
  const ensureQueues = async () => {
    for (const client of [queue, poisonQueue]) await client.createIfNotExists(within(true));
  };
  await ensureQueues();

  /** Deletes or releases (visible again after `visibleInSeconds`) a message this host may no longer own. */
  async function settle(messageId: string, popReceipt: string, visibleInSeconds?: number): Promise<void> {
    try {
      if (visibleInSeconds === undefined) await queue.deleteMessage(messageId, popReceipt, within());
      else await queue.updateMessage(messageId, popReceipt, undefined, visibleInSeconds, within());
    } catch (error) {
      // Someone else owns it now or it is gone: theirs to settle, as in the real QueueProcessor.
      if (!isOwnershipLost(error)) throw error;
    }
  }

  /** Copies the original message text to `<queue>-poison` (re-creating it if deleted), then deletes the original. */
  async function moveToPoisonQueue(
    item: ReceivedMessageItem,
    popReceipt: string,
    why: string,
  ): Promise<void> {
    say("warning", `Message ${item.messageId} ${why}. Moving message to queue '${poisonQueue.name}'.`);
    await poisonQueue.sendMessage(item.messageText, within()).catch(async (error: unknown) => {
      if (!isQueueNotFound(error)) throw error;
      await poisonQueue.createIfNotExists(within());
      await poisonQueue.sendMessage(item.messageText, within());
    });
    await settle(item.messageId, popReceipt);
  }

  /** Locks of the handlers running now, so a stop that gives up waiting can let them lapse. */
  const activeLocks = new Set<ReturnType<typeof holdMessageLock>>();
  const overMax = `MaxDequeueCount of ${settings.maxDequeueCount}`;

  /** One received message, start to finish. Never rejects: a storage failure leaves it to its lock. */
  async function processMessage(item: ReceivedMessageItem): Promise<void> {
    try {
      // A process that died mid-handler never settled the message; count those attempts too.
      if (item.dequeueCount > settings.maxDequeueCount)
        return await moveToPoisonQueue(item, item.popReceipt, `is over ${overMax}`);
      // The real host's decoding-failed handler poisons such a message at once, without retries.
      const decoded = decodeQueueMessage(item.messageText);
      if (!decoded.ok) return await moveToPoisonQueue(item, item.popReceipt, "is not valid base64");
      const invocationId = randomUUID();
      const lock = holdMessageLock({
        queue,
        messageId: item.messageId,
        popReceipt: item.popReceipt,
        lockSeconds,
        storageDeadlineMs: deadlineMs,
        onRenewalFailed: (error, lost) =>
          say(
            "warning",
            lost
              ? `Lost the lock on message ${item.messageId} (${describeError(error)}); another receiver may run it too.`
              : `Could not renew the lock on message ${item.messageId}: ${describeError(error)}; retrying.`,
          ),
      });
      activeLocks.add(lock);
      let failure: { error: unknown } | undefined;
      try {
        // Through a promise so a handler that throws synchronously fails like one that rejects.
        await Promise.resolve().then(() => handler(decoded.text, queueTriggerMetadata(item), invocationId));
      } catch (error) {
        failure = { error };
      } finally {
        await lock.stop();
        activeLocks.delete(lock);
      }
      if (!failure) return await settle(item.messageId, lock.popReceipt);
      say(
        "error",
        `Executed '${functionName}' (Failed, Id=${invocationId}, MessageId=${item.messageId}, ` +
          `DequeueCount=${item.dequeueCount}): ${describeError(failure.error)}`,
      );
      if (item.dequeueCount >= settings.maxDequeueCount)
        await moveToPoisonQueue(item, lock.popReceipt, `has reached ${overMax}`);
      else await settle(item.messageId, lock.popReceipt, settings.visibilityTimeoutSeconds);
    } catch (error) {
      const why = describeError(error);
      say(
        "error",
        `Could not settle message ${item.messageId}: ${why}. It becomes visible again when its lock expires.`,
      );
    }
  }

  const inFlight = new Set<Promise<void>>();
  let wake = () => {};

  async function poll(): Promise<void> {
    const backoff = new PollingBackoff(settings.maxPollingIntervalMs);
    let foundMessages = false;
    let queuesMayBeMissing = false;
    while (!stopping.signal.aborted) {
      let messages: ReceivedMessageItem[] = [];
      try {
        if (queuesMayBeMissing) await ensureQueues();
        queuesMayBeMissing = false;
        const response = await queue.receiveMessages({
          numberOfMessages: settings.batchSize,
          visibilityTimeout: lockSeconds,
          ...within(true),
        });
        messages = response.receivedMessageItems;
      } catch (error) {
        if (stopping.signal.aborted) return;
        // Storage hiccups must not end the host: log, back off, poll again.
        queuesMayBeMissing = isQueueNotFound(error);
        say("warning", `Polling queue '${queue.name}' failed: ${describeError(error)}`);
      }
      if (messages.length === 0) {
        // Waits for the delay or for stop(), whichever comes first.
        await delay(backoff.nextDelayMs(foundMessages), undefined, { signal: stopping.signal }).catch(
          () => {},
        );
        foundMessages = false;
        continue;
      }
      foundMessages = true;
      for (const item of messages) {
        const done: Promise<void> = processMessage(item).finally(() => {
          inFlight.delete(done);
          wake();
        });
        inFlight.add(done);
      }
      // The real listener's WaitForNewBatchThreshold: the next batch once in-flight <= newBatchThreshold.
      while (inFlight.size > settings.newBatchThreshold && !stopping.signal.aborted) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
    }
  }

  const polling = poll().catch((error: unknown) => {
    log("critical", functionName, `Queue trigger stopped polling '${queue.name}': ${describeError(error)}`);
  });

  async function drainAndStop(): Promise<void> {
    stopping.abort();
    wake();
    await polling;
    const timeout = new AbortController();
    const gaveUp = await Promise.race([
      Promise.all(inFlight).then(() => false),
      delay((options.stopTimeoutSeconds ?? 30) * 1000, true, { signal: timeout.signal }).catch(() => false),
    ]);
    timeout.abort();
    if (!gaveUp) return;
    say(
      "warning",
      `Stopped with ${inFlight.size} handler(s) still running; their messages reappear when their locks expire.`,
    );
    // As if the process had died: stop renewing so the messages become visible to the next host.
    await Promise.all([...activeLocks].map((lock) => lock.stop()));
  }

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= drainAndStop();
      return stopped;
    },
  };
}
