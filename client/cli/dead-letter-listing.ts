import type { DeadLetterReason } from "../types";

/**
 * A dead letter as `twin dead-letters list` shows it, from the blob's name and the metadata the
 * service writes (src/delivery/dead-letter-writer.ts, dead-letter-claims.ts; a unit test holds the
 * names in step): no mark, no key, nothing of the container's SAS.
 */

/** Every reason the service records, in `deadletterreason`. */
export const DEAD_LETTER_REASONS: readonly DeadLetterReason[] = [
  "MaxDeliveryAttemptsExceeded",
  "TtlExpired",
  "MessageRefused",
];

/** The metadata names the service writes a dead letter with. */
export const DEAD_LETTER_METADATA = {
  reason: "deadletterreason",
  attempts: "deliveryattempts",
  lastError: "lasterror",
  deadLetteredAt: "deadletteredat",
  redelivered: "redelivered",
} as const;

/** What a listing reads of a blob. */
export interface ListedBlob {
  name: string;
  metadata?: Record<string, string>;
  createdOn?: Date;
}

export interface DeadLetter {
  blob: string;
  /** The event's id, from the blob's name; undefined when the name holds only its hash (a very long id). */
  eventId: string | undefined;
  reason: string | undefined;
  attempts: number | undefined;
  lastError: string | undefined;
  /** When it was (last) dead-lettered: `deadletteredat`, else the blob's creation time. */
  deadLetteredAt: string | undefined;
  /** When a redelivery requeued it; undefined when none did since it was (last) dead-lettered. */
  redelivered: string | undefined;
}

/** Which dead letters to list: a reason (compared exactly), a time window (inclusive). */
export interface DeadLetterSelection {
  reason?: string;
  from?: Date;
  to?: Date;
}

/**
 * The event id in a dead letter's name, `{endpoint}/{yyyy}/{MM}/{dd}/{HH}/{id}.json` with the id
 * percent-encoded and `.1`, `.2`, … for further events of a taken name; a name the service cut to a
 * hash (`{start}~{sha256}.json`) holds no whole id.
 */
export function eventIdOf(blobName: string): string | undefined {
  const file = blobName.slice(blobName.lastIndexOf("/") + 1);
  const encoded = /^(.*?)(?:\.\d+)?\.json$/.exec(file)?.[1];
  if (encoded === undefined || encoded === "" || encoded.includes("~")) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

export function deadLetterOf(blob: ListedBlob): DeadLetter {
  const metadata = blob.metadata ?? {};
  const attempts = Number(metadata[DEAD_LETTER_METADATA.attempts]);
  return {
    blob: blob.name,
    eventId: eventIdOf(blob.name),
    reason: metadata[DEAD_LETTER_METADATA.reason],
    attempts:
      metadata[DEAD_LETTER_METADATA.attempts] !== undefined && Number.isFinite(attempts)
        ? attempts
        : undefined,
    lastError: metadata[DEAD_LETTER_METADATA.lastError],
    deadLetteredAt: metadata[DEAD_LETTER_METADATA.deadLetteredAt] ?? blob.createdOn?.toISOString(),
    redelivered: metadata[DEAD_LETTER_METADATA.redelivered],
  };
}

/** Whether the dead letter is one the selection asks for (no time known: only without a window). */
export function isSelected(deadLetter: DeadLetter, selection: DeadLetterSelection): boolean {
  if (selection.reason !== undefined && deadLetter.reason !== selection.reason) return false;
  const at = Date.parse(deadLetter.deadLetteredAt ?? "");
  if (Number.isNaN(at)) return selection.from === undefined && selection.to === undefined;
  return (
    (selection.from === undefined || at >= selection.from.getTime()) &&
    (selection.to === undefined || at <= selection.to.getTime())
  );
}
