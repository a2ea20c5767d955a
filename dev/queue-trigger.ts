import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { type QueueClient, QueueServiceClient, type ReceivedMessageItem } from "@azure/storage-queue";
import { describeError } from "../src/common/describe-error";
import { poisonQueueName } from "../src/common/poison-queue";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../src/store/storage-deadline";
import type { RpcTypedData } from "./functions-worker";
import type { HostSettings } from "./host-json";
import { consoleLogger, type HostLogger } from "./host-logger";

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

/** This host no longer owns the message: the errors the real listener ignores when settling or renewing one. */
const OWNERSHIP_LOST = new Set(
  "PopReceiptMismatch MessageNotFound QueueNotFound QueueBeingDeleted QueueDisabled".split(" "),
);
const isOwnershipLost = (error: unknown) =>
  OWNERSHIP_LOST.has((error as { code?: string } | null)?.code ?? "");

/**
 * host.json `messageEncoding: base64`: the text is base64 of UTF-8 bytes, judged by the rules of
 * .NET's Convert.FromBase64String, which the Functions host decodes with: whitespace is skipped, the
 * rest must be whole 4-character groups of the base64 alphabet with at most two '=' at the very end.
 * Node's Buffer.from(text, "base64") accepts almost anything, so it cannot be the judge.
 */
export function decodeQueueMessage(messageText: string): { ok: true; text: string } | { ok: false } {
  const compact = messageText.replace(/[ \t\r\n]/g, "");
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return { ok: false };
  return { ok: true, text: Buffer.from(compact, "base64").toString("utf8") };
}

/**
 * The binding data the real queue trigger sends with a message, as the host puts it on the wire:
 * PascalCase names (the worker's library camel-cases them into context.triggerMetadata), numbers
 * as JSON, the rest as text; dates in Newtonsoft's DateTimeOffset format, "2024-05-01T12:00:00+00:00".
 */
export function queueTriggerMetadata(item: ReceivedMessageItem): Record<string, RpcTypedData> {
  const dates = {
    ExpirationTime: item.expiresOn,
    InsertionTime: item.insertedOn,
    NextVisibleTime: item.nextVisibleOn,
  };
  return {
    DequeueCount: { json: String(item.dequeueCount) },
    Id: { string: item.messageId },
    PopReceipt: { string: item.popReceipt },
    ...Object.fromEntries(
      Object.entries(dates).flatMap(([name, date]) =>
        date ? [[name, { string: date.toISOString().replace(".000Z", "Z").replace(/Z$/, "+00:00") }]] : [],
      ),
    ),
  };
}

/**
 * Keeps a message invisible while its handler runs, renewing it halfway to expiry as the real
 * listener's visibility timer does, each renewal within the storage deadline but never past half the
 * lock; after a transient failure it retries sooner (LinearSpeedupStrategy), after a lost ownership
 * it stops. stop() waits for a renewal in flight, so popReceipt is then final.
 */
export function holdMessageLock(options: {
  queue: QueueClient;
  messageId: string;
  popReceipt: string;
  lockSeconds: number;
  storageDeadlineMs: number;
  onRenewalFailed(error: unknown, ownershipLost: boolean): void;
}) {
  const { queue, messageId, lockSeconds, onRenewalFailed } = options;
  const halfMs = (lockSeconds * 1000) / 2;
  const stopping = new AbortController();
  let popReceipt = options.popReceipt;
  let failures = 0;
  const renewing = (async () => {
    const waitMs = () => Math.max(halfMs / (failures + 1), halfMs / 5);
    while (await delay(waitMs(), true, { signal: stopping.signal }).catch(() => false)) {
      try {
        const call = { abortSignal: storageDeadline(Math.min(options.storageDeadlineMs, halfMs)) };
        const renewed = await queue.updateMessage(messageId, popReceipt, undefined, lockSeconds, call);
        popReceipt = renewed.popReceipt ?? popReceipt;
        failures = 0;
      } catch (error) {
        onRenewalFailed(error, isOwnershipLost(error));
        if (isOwnershipLost(error)) return;
        failures++;
      }
    }
  })();
  return {
    get popReceipt() {
      return popReceipt;
    },
    async stop() {
      stopping.abort();
      await renewing;
    },
  };
}

/**
 * The local host's storage queue trigger, following the real one (WebJobs QueueListener and
 * QueueProcessor): batches of batchSize, the next once no more than newBatchThreshold run, back-off
 * (doubling up to maxPollingInterval) while empty, retries after visibilityTimeout, `<queue>-poison`
 * at maxDequeueCount. A message is deleted only after its handler succeeds, so a process that dies
 * mid-handler loses nothing: it reappears when its lock expires. Resolves once both queues exist and
 * polling has started.
 */
export async function startQueueTrigger(options: QueueTriggerOptions): Promise<QueueTrigger> {
  const { functionName, settings, handler, lockSeconds = 60 } = options;
  const deadlineMs = options.storageDeadlineMs ?? STORAGE_CALL_DEADLINE_MS;
  const log = options.log ?? consoleLogger;
  const say = (level: "warning" | "error", message: string) => log(level, functionName, message);
  const service = QueueServiceClient.fromConnectionString(options.connectionString);
  const queue = service.getQueueClient(options.queueName);
  const poisonQueue = service.getQueueClient(poisonQueueName(options.queueName));
  const stopping = new AbortController();
  const { signal } = stopping;
  /** One storage call's options: its own deadline, or stop() when polling, whichever comes first. */
  const within = (orStop = false) => {
    const deadline = storageDeadline(deadlineMs);
    return { abortSignal: orStop ? AbortSignal.any([deadline, signal]) : deadline };
  };
  for (const client of [queue, poisonQueue]) await client.createIfNotExists(within(true));

  async function settle(messageId: string, popReceipt: string, visibleInSeconds?: number): Promise<void> {
    try {
      if (visibleInSeconds === undefined) await queue.deleteMessage(messageId, popReceipt, within());
      else await queue.updateMessage(messageId, popReceipt, undefined, visibleInSeconds, within());
    } catch (error) {
      // Someone else owns it now or it is gone: theirs to settle, as in the real QueueProcessor.
      if (!isOwnershipLost(error)) throw error;
    }
  }

  /** Copies the original text to `<queue>-poison` (created if missing, as the real one does), then deletes the original. */
  async function moveToPoisonQueue(item: ReceivedMessageItem, popReceipt: string, why: string) {
    say("warning", `Message ${item.messageId} ${why}. Moving message to queue '${poisonQueue.name}'.`);
    await poisonQueue.createIfNotExists(within());
    await poisonQueue.sendMessage(item.messageText, within());
    await settle(item.messageId, popReceipt);
  }

  /** Locks of the handlers running now, so a stop that gives up waiting can let them lapse. */
  const activeLocks = new Set<ReturnType<typeof holdMessageLock>>();
  const locking = { queue, lockSeconds, storageDeadlineMs: deadlineMs };
  const overMax = `MaxDequeueCount of ${settings.maxDequeueCount}`;
  /** One received message, start to finish. Never rejects: a storage failure leaves it to its lock. */
  async function processMessage(item: ReceivedMessageItem): Promise<void> {
    const { messageId, dequeueCount } = item;
    try {
      // A process that died mid-handler never settled the message; count those attempts too.
      if (dequeueCount > settings.maxDequeueCount)
        return await moveToPoisonQueue(item, item.popReceipt, `is over ${overMax}`);
      // The real host's decoding-failed handler poisons such a message at once, without retries.
      const decoded = decodeQueueMessage(item.messageText);
      if (!decoded.ok) return await moveToPoisonQueue(item, item.popReceipt, "is not valid base64");
      const invocationId = randomUUID();
      const onRenewalFailed = (error: unknown, lost: boolean) => {
        const why = describeError(error);
        if (lost)
          say("warning", `Lost the lock on message ${messageId} (${why}); another receiver may run it too.`);
        else say("warning", `Could not renew the lock on message ${messageId}: ${why}; retrying.`);
      };
      const lock = holdMessageLock({ ...locking, messageId, popReceipt: item.popReceipt, onRenewalFailed });
      activeLocks.add(lock);
      // Async, so a handler that throws synchronously fails like one that rejects.
      const invoke = async () => handler(decoded.text, queueTriggerMetadata(item), invocationId);
      const [outcome] = await Promise.allSettled([invoke()]);
      await lock.stop();
      activeLocks.delete(lock);
      if (outcome.status === "fulfilled") return await settle(messageId, lock.popReceipt);
      const attempt = `Id=${invocationId}, MessageId=${messageId}, DequeueCount=${dequeueCount}`;
      say("error", `Executed '${functionName}' (Failed, ${attempt}): ${describeError(outcome.reason)}`);
      if (dequeueCount >= settings.maxDequeueCount)
        await moveToPoisonQueue(item, lock.popReceipt, `has reached ${overMax}`);
      else await settle(messageId, lock.popReceipt, settings.visibilityTimeoutSeconds);
    } catch (error) {
      const why = `${describeError(error)}. It becomes visible again when its lock expires`;
      say("error", `Could not settle message ${messageId}: ${why}.`);
    }
  }

  const inFlight = new Set<Promise<void>>();
  let wake = () => {};
  async function poll(): Promise<void> {
    const batch = { numberOfMessages: settings.batchSize, visibilityTimeout: lockSeconds };
    const shortestWaitMs = Math.min(100, settings.maxPollingIntervalMs);
    let idleMs = shortestWaitMs;
    while (!signal.aborted) {
      let messages: ReceivedMessageItem[] = [];
      try {
        messages = (await queue.receiveMessages({ ...batch, ...within(true) })).receivedMessageItems;
      } catch (error) {
        if (signal.aborted) return;
        // Storage hiccups must not end the host: log, back off, poll again.
        say("warning", `Polling queue '${queue.name}' failed: ${describeError(error)}`);
      }
      // An empty poll adds nothing, so the threshold wait below passes at once.
      if (messages.length === 0) {
        await delay(idleMs, undefined, { signal }).catch(() => {});
        idleMs = Math.min(idleMs * 2, settings.maxPollingIntervalMs);
      } else idleMs = shortestWaitMs;
      for (const item of messages) {
        const done: Promise<void> = processMessage(item).finally(() => {
          inFlight.delete(done);
          wake();
        });
        inFlight.add(done);
      }
      // The real listener's WaitForNewBatchThreshold: the next batch once in-flight <= newBatchThreshold.
      while (inFlight.size > settings.newBatchThreshold && !signal.aborted) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
    }
  }

  const polling = poll();
  async function drainAndStop(): Promise<void> {
    stopping.abort();
    wake();
    await polling;
    // Unreferenced, so a drained trigger's wait keeps no process alive.
    const waitMs = (options.stopTimeoutSeconds ?? 30) * 1000;
    const drained = Promise.all(inFlight).then(() => true);
    if (await Promise.race([drained, delay(waitMs, false, { ref: false })])) return;
    say("warning", `Stopped with ${inFlight.size} handler(s) still running; their locks are left to lapse.`);
    // As if the process had died: stop renewing so the messages become visible to the next host.
    await Promise.all([...activeLocks].map((lock) => lock.stop()));
  }

  let stopped: Promise<void> | undefined;
  return { stop: () => (stopped ??= drainAndStop()) };
}
