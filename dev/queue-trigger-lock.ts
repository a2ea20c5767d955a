import type { QueueClient } from "@azure/storage-queue";
import { storageDeadline } from "../src/store/storage-deadline";
import { isMessageOwnershipLost } from "./queue-trigger-storage-errors";

/** A received message kept invisible while its handler runs. */
export interface MessageLock {
  /** The latest pop receipt: every renewal replaces it, and only the latest can delete or release the message. */
  readonly popReceipt: string;
  /** Stops renewing and waits for a renewal in flight, so popReceipt is final. */
  stop(): Promise<void>;
}

export interface MessageLockOptions {
  queue: QueueClient;
  messageId: string;
  popReceipt: string;
  lockSeconds: number;
  /** How long one renewal may take; never past half the lock, so a hung one is retried before it lapses. */
  storageDeadlineMs: number;
  /** Called when a renewal fails; after a lost ownership the lock stops renewing. */
  onRenewalFailed(error: unknown, ownershipLost: boolean): void;
}

/**
 * Renews a message's invisibility halfway to expiry, as the real listener's visibility timer does,
 * so a slow handler keeps its message and a crashed process loses it once the lock runs out.
 * After a transient failure it retries sooner (the real LinearSpeedupStrategy) to renew before expiry.
 */
export function holdMessageLock(options: MessageLockOptions): MessageLock {
  const lockMs = options.lockSeconds * 1000;
  const normalIntervalMs = lockMs / 2;
  const fastestIntervalMs = lockMs / 10;
  const renewalDeadlineMs = Math.min(options.storageDeadlineMs, normalIntervalMs);
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
        abortSignal: storageDeadline(renewalDeadlineMs),
      })
      .then((response) => {
        if (response.popReceipt !== undefined) popReceipt = response.popReceipt;
        failures = 0;
        schedule(normalIntervalMs);
      })
      .catch((error: unknown) => {
        const ownershipLost = isMessageOwnershipLost(error);
        options.onRenewalFailed(error, ownershipLost);
        if (ownershipLost) return;
        failures++;
        schedule(Math.max(normalIntervalMs / (failures + 1), fastestIntervalMs));
      });
  }

  schedule(normalIntervalMs);
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
