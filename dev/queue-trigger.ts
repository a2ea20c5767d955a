import { channel } from "node:diagnostics_channel";
import { setTimeout as delay } from "node:timers/promises";
import { trigger } from "@azure/functions";
import { type QueueClient, QueueServiceClient, type ReceivedMessageItem } from "@azure/storage-queue";
import { describeError } from "../src/common/describe-error";
import { poisonQueueName } from "../src/common/poison-queue";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../src/store/storage-deadline";
import type { HostSettings } from "./host-json";
import { consoleLogger, type HostLogger } from "./host-logger";
import { PollingBackoff } from "./queue-trigger-backoff";
import {
  type MessageProcessing,
  processQueueMessage,
  type QueueTriggerHandler,
} from "./queue-trigger-invocation";
import type { MessageLock } from "./queue-trigger-lock";
import { isQueueNotFound } from "./queue-trigger-storage-errors";

export interface QueueTriggerOptions {
  /** The storage connection string (the AzureWebJobsStorage setting). */
  connectionString: string;
  queueName: string;
  functionName: string;
  handler: QueueTriggerHandler;
  /** host.json's extensions.queues, from readHostSettings(). */
  settings: HostSettings["queues"];
  /** How long a message stays invisible while being processed; renewed while the handler runs. Default 60 s. */
  lockSeconds?: number;
  /** How long stop() waits for running handlers before leaving their messages to their locks. Default 30 s. */
  stopTimeoutSeconds?: number;
  /**
   * How long one call to the queue service may take before it is abandoned (a poll then fails and
   * is tried again after the back-off, as any failed poll). Default STORAGE_CALL_DEADLINE_MS.
   */
  storageDeadlineMs?: number;
  log?: HostLogger;
}

export interface QueueTrigger {
  /** Stops polling and waits (bounded) for running handlers to finish and settle their messages. */
  stop(): Promise<void>;
}

/**
 * Each poll that found messages, as { queue, messages, at: performance.now() }: the benchmark
 * splits the time to a burst's first delivery into the wait for a poll and what comes after it.
 * Publishing costs nothing while nobody subscribes.
 */
export const QUEUE_TRIGGER_RECEIVED = "local-host:queue-trigger:received";
const received = channel(QUEUE_TRIGGER_RECEIVED);

const DEFAULT_LOCK_SECONDS = 60;
const DEFAULT_STOP_TIMEOUT_SECONDS = 30;
/** The storage service's limit on messages per receive, which the real host enforces on batchSize. */
const MAX_BATCH_SIZE = 32;
/** The longest delay a Node timer (and so AbortSignal.timeout) keeps: about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function validate(options: QueueTriggerOptions): void {
  const { batchSize, newBatchThreshold, maxDequeueCount, visibilityTimeoutSeconds } = options.settings;
  const deadlineMs = options.storageDeadlineMs ?? STORAGE_CALL_DEADLINE_MS;
  const problems = [
    !(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= MAX_BATCH_SIZE) &&
      `batchSize must be 1..${MAX_BATCH_SIZE}`,
    !(Number.isInteger(newBatchThreshold) && newBatchThreshold >= 0) && "newBatchThreshold must be 0 or more",
    !(Number.isInteger(maxDequeueCount) && maxDequeueCount >= 1) && "maxDequeueCount must be 1 or more",
    !(visibilityTimeoutSeconds >= 0) && "visibilityTimeout must not be negative",
    !((options.lockSeconds ?? DEFAULT_LOCK_SECONDS) >= 1) && "lockSeconds must be 1 or more",
    !(deadlineMs >= 1 && deadlineMs <= MAX_TIMER_MS) &&
      `storageDeadlineMs must be 1..${MAX_TIMER_MS} milliseconds`,
  ].filter((problem): problem is string => typeof problem === "string");
  if (problems.length > 0) {
    throw new Error(`queue trigger '${options.functionName}': ${problems.join("; ")}`);
  }
}

/** Both queues, each call within `deadlineMs` and ended early by `stopping` when given. */
async function ensureQueues(
  queues: QueueClient[],
  deadlineMs: number,
  stopping?: AbortSignal,
): Promise<void> {
  for (const queue of queues) await queue.createIfNotExists({ abortSignal: within(deadlineMs, stopping) });
}

/** A call's signal: its deadline, or stop(), whichever comes first. */
function within(deadlineMs: number, stopping?: AbortSignal): AbortSignal {
  const deadline = storageDeadline(deadlineMs);
  return stopping === undefined ? deadline : AbortSignal.any([deadline, stopping]);
}

/**
 * The local host's storage queue trigger, following the real one (the WebJobs QueueListener):
 * poll in batches of batchSize, fetch the next batch once no more than newBatchThreshold handlers
 * run, back off exponentially while the queue is empty, retry failures after visibilityTimeout and
 * move a message to `<queue>-poison` at maxDequeueCount. A message is deleted only after its handler
 * succeeds, so a process that dies mid-handler loses nothing: the message reappears when its lock
 * expires. Resolves once both queues exist and polling has started. Local-only; never deployed.
 */
export async function startQueueTrigger(options: QueueTriggerOptions): Promise<QueueTrigger> {
  validate(options);
  const log = options.log ?? consoleLogger;
  const { functionName, settings } = options;
  const service = QueueServiceClient.fromConnectionString(options.connectionString);
  const queue = service.getQueueClient(options.queueName);
  const poisonQueue = service.getQueueClient(poisonQueueName(options.queueName));
  const storageDeadlineMs = options.storageDeadlineMs ?? STORAGE_CALL_DEADLINE_MS;
  await ensureQueues([queue, poisonQueue], storageDeadlineMs);

  const activeLocks = new Set<MessageLock>();
  const processing: MessageProcessing = {
    queue,
    poisonQueue,
    functionName,
    trigger: trigger.storageQueue({ queueName: options.queueName, connection: "AzureWebJobsStorage" }),
    handler: options.handler,
    settings,
    lockSeconds: options.lockSeconds ?? DEFAULT_LOCK_SECONDS,
    log,
    activeLocks,
    storageDeadlineMs,
  };
  const inFlight = new Set<Promise<void>>();
  const stopping = new AbortController();
  let wakePoller: (() => void) | undefined;
  const wake = () => {
    const resume = wakePoller;
    wakePoller = undefined;
    resume?.();
  };

  /** Waits for the delay or for stop(), whichever comes first. */
  const pause = (delayMs: number) => delay(delayMs, undefined, { signal: stopping.signal }).catch(() => {});

  function track(item: ReceivedMessageItem): void {
    const done: Promise<void> = processQueueMessage(processing, item).finally(() => {
      inFlight.delete(done);
      wake();
    });
    inFlight.add(done);
  }

  async function poll(): Promise<void> {
    const backoff = new PollingBackoff(settings.maxPollingIntervalMs);
    let foundMessagesSinceLastDelay = false;
    let queuesMayBeMissing = false;
    while (!stopping.signal.aborted) {
      let messages: ReceivedMessageItem[];
      try {
        if (queuesMayBeMissing) await ensureQueues([queue, poisonQueue], storageDeadlineMs, stopping.signal);
        queuesMayBeMissing = false;
        const response = await queue.receiveMessages({
          numberOfMessages: settings.batchSize,
          visibilityTimeout: processing.lockSeconds,
          abortSignal: within(storageDeadlineMs, stopping.signal),
        });
        messages = response.receivedMessageItems;
      } catch (error) {
        if (stopping.signal.aborted) return;
        // Storage hiccups must not end the host: log, back off, poll again.
        queuesMayBeMissing = isQueueNotFound(error);
        log("warning", functionName, `Polling queue '${queue.name}' failed: ${describeError(error)}`);
        messages = [];
      }
      if (messages.length === 0) {
        await pause(backoff.nextDelayMs(foundMessagesSinceLastDelay));
        foundMessagesSinceLastDelay = false;
        continue;
      }
      foundMessagesSinceLastDelay = true;
      if (received.hasSubscribers) {
        received.publish({ queue: queue.name, messages: messages.length, at: performance.now() });
      }
      for (const item of messages) track(item);
      // The real listener's WaitForNewBatchThreshold: the next batch once in-flight <= newBatchThreshold.
      while (inFlight.size > settings.newBatchThreshold && !stopping.signal.aborted) {
        await new Promise<void>((resolve) => (wakePoller = resolve));
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
    const timeoutMs = (options.stopTimeoutSeconds ?? DEFAULT_STOP_TIMEOUT_SECONDS) * 1000;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = await Promise.race([
      Promise.all(inFlight).then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (gaveUp) {
      log(
        "warning",
        functionName,
        `Stopped with ${inFlight.size} handler(s) still running; their messages reappear when their locks expire.`,
      );
      // As if the process had died: stop renewing so the messages become visible to the next host.
      await Promise.all([...activeLocks].map((lock) => lock.stop()));
    }
  }

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= drainAndStop();
      return stopped;
    },
  };
}
