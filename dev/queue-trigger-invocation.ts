import { randomUUID } from "node:crypto";
import { format } from "node:util";
import { type FunctionTrigger, InvocationContext } from "@azure/functions";
import type { QueueClient, ReceivedMessageItem } from "@azure/storage-queue";
import { describeError } from "../src/common/describe-error";
import { storageDeadline } from "../src/store/storage-deadline";
import type { HostSettings } from "./host-json";
import type { HostLogger } from "./host-logger";
import { holdMessageLock, type MessageLock } from "./queue-trigger-lock";
import { decodeQueueMessage, queueTriggerMetadata } from "./queue-trigger-message";
import { isMessageOwnershipLost, isQueueNotFound } from "./queue-trigger-storage-errors";

export type QueueTriggerHandler = (message: unknown, context: InvocationContext) => Promise<void>;

/** Everything one message needs, shared by all messages of one trigger. */
export interface MessageProcessing {
  queue: QueueClient;
  poisonQueue: QueueClient;
  functionName: string;
  trigger: FunctionTrigger;
  handler: QueueTriggerHandler;
  settings: HostSettings["queues"];
  lockSeconds: number;
  log: HostLogger;
  /** Locks of the handlers running now, so a stop that gives up waiting can let them lapse. */
  activeLocks: Set<MessageLock>;
  /** How long one storage call may take before it is abandoned (src/store/storage-deadline.ts). */
  storageDeadlineMs: number;
}

/**
 * One received message, start to finish, as the real QueueListener + QueueProcessor handle it:
 * poison it unseen when it is over maxDequeueCount or not base64, else invoke the handler under a
 * renewed lock, then delete it (success), release it for a retry after host.json's visibilityTimeout,
 * or move it to the poison queue once its dequeueCount reaches maxDequeueCount.
 * Never rejects: a storage failure here leaves the message to reappear when its lock expires.
 */
export async function processQueueMessage(
  processing: MessageProcessing,
  item: ReceivedMessageItem,
): Promise<void> {
  const { functionName, log, settings } = processing;
  try {
    // A process that died mid-handler never settled the message; count those attempts too.
    if (item.dequeueCount > settings.maxDequeueCount) {
      await moveToPoisonQueue(processing, item, item.popReceipt, "is over");
      return;
    }
    // The real host's decoding-failed handler poisons such a message at once, without retries.
    const decoded = decodeQueueMessage(item.messageText);
    if (!decoded.ok) {
      await moveToPoisonQueue(processing, item, item.popReceipt, "is not valid base64");
      return;
    }
    const invocationId = randomUUID();
    const { outcome, popReceipt } = await invokeUnderLock(processing, item, decoded.value, invocationId);
    if (outcome.ok) {
      await deleteMessage(processing, item.messageId, popReceipt);
      return;
    }
    log(
      "error",
      functionName,
      `Executed '${functionName}' (Failed, Id=${invocationId}, MessageId=${item.messageId}, ` +
        `DequeueCount=${item.dequeueCount}): ${describeError(outcome.error)}`,
    );
    if (item.dequeueCount >= settings.maxDequeueCount) {
      await moveToPoisonQueue(processing, item, popReceipt, "has reached");
    } else {
      await releaseMessage(processing, item.messageId, popReceipt);
    }
  } catch (error) {
    log(
      "error",
      functionName,
      `Could not settle message ${item.messageId}: ${describeError(error)}. ` +
        "It becomes visible again when its lock expires.",
    );
  }
}

type Outcome = { ok: true } | { ok: false; error: unknown };

/** The options of one storage call of the trigger: its own deadline (a fresh signal each call). */
function withDeadline(processing: MessageProcessing): { abortSignal: AbortSignal } {
  return { abortSignal: storageDeadline(processing.storageDeadlineMs) };
}

async function invokeUnderLock(
  processing: MessageProcessing,
  item: ReceivedMessageItem,
  message: unknown,
  invocationId: string,
): Promise<{ outcome: Outcome; popReceipt: string }> {
  const { functionName, log } = processing;
  const lock = holdMessageLock({
    queue: processing.queue,
    messageId: item.messageId,
    popReceipt: item.popReceipt,
    lockSeconds: processing.lockSeconds,
    storageDeadlineMs: processing.storageDeadlineMs,
    onRenewalFailed: (error, ownershipLost) =>
      log(
        "warning",
        functionName,
        ownershipLost
          ? `Lost the lock on message ${item.messageId} (${describeError(error)}); another receiver may run it too.`
          : `Could not renew the lock on message ${item.messageId}: ${describeError(error)}; retrying.`,
      ),
  });
  processing.activeLocks.add(lock);
  const context = new InvocationContext({
    invocationId,
    functionName,
    logHandler: (level, ...args) => log(level, functionName, format(...args)),
    triggerMetadata: queueTriggerMetadata(item, message),
    options: { trigger: processing.trigger },
  });
  let outcome: Outcome;
  try {
    // Through a promise so a handler that throws synchronously fails like one that rejects.
    await Promise.resolve().then(() => processing.handler(message, context));
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error };
  } finally {
    await lock.stop();
    processing.activeLocks.delete(lock);
  }
  return { outcome, popReceipt: lock.popReceipt };
}

async function deleteMessage(
  processing: MessageProcessing,
  messageId: string,
  popReceipt: string,
): Promise<void> {
  try {
    await processing.queue.deleteMessage(messageId, popReceipt, withDeadline(processing));
  } catch (error) {
    // Someone else owns it now or it is gone: theirs to settle, as in the real QueueProcessor.
    if (!isMessageOwnershipLost(error)) throw error;
  }
}

/** Makes a failed message visible again after host.json's visibilityTimeout (the retry delay). */
async function releaseMessage(
  processing: MessageProcessing,
  messageId: string,
  popReceipt: string,
): Promise<void> {
  try {
    await processing.queue.updateMessage(
      messageId,
      popReceipt,
      undefined,
      processing.settings.visibilityTimeoutSeconds,
      withDeadline(processing),
    );
  } catch (error) {
    if (!isMessageOwnershipLost(error)) throw error;
  }
}

/** Copies the original message text to `<queue>-poison`, then deletes the original. */
async function moveToPoisonQueue(
  processing: MessageProcessing,
  item: ReceivedMessageItem,
  popReceipt: string,
  reason: "is over" | "has reached" | "is not valid base64",
): Promise<void> {
  const { poisonQueue, settings } = processing;
  const why =
    reason === "is not valid base64" ? reason : `${reason} MaxDequeueCount of ${settings.maxDequeueCount}`;
  processing.log(
    "warning",
    processing.functionName,
    `Message ${item.messageId} ${why}. Moving message to queue '${poisonQueue.name}'.`,
  );
  try {
    await poisonQueue.sendMessage(item.messageText, withDeadline(processing));
  } catch (error) {
    // Like AddMessageAndCreateIfNotExistsAsync: someone may have deleted the poison queue.
    if (!isQueueNotFound(error)) throw error;
    await poisonQueue.createIfNotExists(withDeadline(processing));
    await poisonQueue.sendMessage(item.messageText, withDeadline(processing));
  }
  await deleteMessage(processing, item.messageId, popReceipt);
}
