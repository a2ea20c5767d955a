import type { BlobClient } from "@azure/storage-blob";
import { STORAGE_CALL_DEADLINE_MS, storageDeadline } from "../store/storage-deadline";
import { isPassingStorageFault, storageStatus } from "../store/storage-errors";

/**
 * How a redelivery takes a dead letter for itself, so that however many calls run at once, on
 * however many hosts, each dead letter is requeued by one of them. All three steps are metadata
 * writes conditional on the blob's ETag:
 *
 * 1. claim: `redeliveryclaim=<ISO time>`, on the ETag the call listed (and read the body under);
 *    a call that loses the race gets 412 and leaves the blob alone;
 * 2. the event is queued;
 * 3. done: `redelivered=<ISO time>` replaces the claim (or, when queueing failed, the claim is
 *    released), on the ETag of the claim.
 *
 * A claim older than CLAIM_SECONDS without a `redelivered` mark was left by a call that stopped
 * halfway (a crash between steps), and may be taken again: a plain call then requeues the event,
 * so a dead letter is never lost to redelivery. A newer claim is another call's work in progress:
 * skipped. Taking a claim again requeues an event twice only if step 3 never landed though step 2
 * did; so step 3 is not given up on at its first failure (a store that stalls, or answers a write
 * it applied with nothing): it is tried until it lands, or is seen to have landed, for two storage
 * calls' deadlines (markTriesMs). Only a store answering none of that for so long, or a host
 * stopping between steps 2 and 3, leaves a requeued dead letter unmarked.
 */
export const REDELIVERED_METADATA = "redelivered";
export const CLAIM_METADATA = "redeliveryclaim";
export const CLAIM_SECONDS = 300;

export type Metadata = Record<string, string>;

/** The blob's metadata without the redelivery marks: what it is as a fresh dead letter. */
export function unmarked(metadata: Metadata): Metadata {
  const { [REDELIVERED_METADATA]: _done, [CLAIM_METADATA]: _claim, ...rest } = metadata;
  return rest;
}

/** Whether another call holds the blob: a claim younger than CLAIM_SECONDS. */
export function claimedElsewhere(metadata: Metadata, now: Date): boolean {
  const at = Date.parse(metadata[CLAIM_METADATA] ?? "");
  return !Number.isNaN(at) && now.getTime() - at < CLAIM_SECONDS * 1000;
}

/** The write lost a race: the blob changed since it was read (412), or is leased (409). */
export function lostRace(error: unknown): boolean {
  const status = storageStatus(error);
  return status === 412 || status === 409;
}

/**
 * Step 1: the claim's ETag, or undefined when another call changed the blob first. `deadlineMs`,
 * here and in settle: how long the write may take (storage-deadline.ts), the service's unless given.
 */
export async function claim(
  blob: BlobClient,
  metadata: Metadata,
  etag: string,
  now: Date,
  deadlineMs?: number,
): Promise<string | undefined> {
  try {
    const claimed = await blob.setMetadata(
      { ...unmarked(metadata), [CLAIM_METADATA]: now.toISOString() },
      { conditions: { ifMatch: etag }, abortSignal: storageDeadline(deadlineMs) },
    );
    return claimed.etag;
  } catch (error) {
    if (lostRace(error)) return undefined;
    throw error;
  }
}

/** Step 3 when the event was not queued: the claim released, once (a claim left lapses anyway). */
export async function release(
  blob: BlobClient,
  metadata: Metadata,
  claimEtag: string,
  deadlineMs?: number,
): Promise<void> {
  await blob.setMetadata(metadata, {
    conditions: { ifMatch: claimEtag },
    abortSignal: storageDeadline(deadlineMs),
  });
}

/** How long step 3 is tried after the event was queued: two storage calls' deadlines. */
export function markTriesMs(deadlineMs: number = STORAGE_CALL_DEADLINE_MS): number {
  return 2 * deadlineMs;
}

const MARK_RETRY_PAUSE_MS = 250;

/**
 * Step 3 when the event was queued: `redelivered` set, on the claim's ETag. A try that fails
 * without an answer may still have landed, so the next tries tell: 412 means the blob changed
 * since the claim, by an earlier try (it holds this very mark: done) or by the writer, which
 * dead-lettered the event again (a fresh dead letter, not to be marked: done too; no other call
 * takes a claim younger than CLAIM_SECONDS). A store that fails or does not answer is tried again
 * until `triesMs` have passed (each try within its deadline, none begun after); then, or for a
 * refusal, the error is thrown.
 */
export async function markRedelivered(
  blob: BlobClient,
  metadata: Metadata,
  claimEtag: string,
  redeliveredAt: Date,
  deadlineMs: number = STORAGE_CALL_DEADLINE_MS,
  triesMs: number = markTriesMs(deadlineMs),
): Promise<void> {
  const mark = redeliveredAt.toISOString();
  const until = Date.now() + triesMs;
  const deadline = () => storageDeadline(Math.min(deadlineMs, Math.max(0, until - Date.now())));
  for (;;) {
    try {
      await blob.setMetadata(
        { ...unmarked(metadata), [REDELIVERED_METADATA]: mark },
        { conditions: { ifMatch: claimEtag }, abortSignal: deadline() },
      );
      return;
    } catch (error) {
      if (storageStatus(error) === 412) return;
      // A refusal (403, 404) will not change by trying again; a store failing or silent may.
      if (!isPassingStorageFault(error) || Date.now() + MARK_RETRY_PAUSE_MS >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, MARK_RETRY_PAUSE_MS));
    }
  }
}
