import type { BlobClient } from "@azure/storage-blob";
import { storageDeadline } from "../store/storage-deadline";

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
 * so a dead letter is never lost to redelivery, and at worst requeued twice (delivery is at least
 * once anyway). A newer claim is another call's work in progress: skipped.
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
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
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

/** Step 3: `redelivered` set (the event is queued), or the claim released (it is not). */
export async function settle(
  blob: BlobClient,
  metadata: Metadata,
  claimEtag: string | undefined,
  redeliveredAt: Date | undefined,
  deadlineMs?: number,
): Promise<void> {
  const settled =
    redeliveredAt === undefined
      ? metadata
      : { ...unmarked(metadata), [REDELIVERED_METADATA]: redeliveredAt.toISOString() };
  await blob.setMetadata(settled, {
    conditions: { ifMatch: claimEtag },
    abortSignal: storageDeadline(deadlineMs),
  });
}
