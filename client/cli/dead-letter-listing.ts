import {
  DEAD_LETTER_REASONS as DEAD_LETTER_REASONS_RECORDED,
  DEAD_LETTERED_AT_METADATA,
  type DeadLetterBlob,
  type DeadLetterSelection,
  deadLetterWrittenAt,
  isDeadLetterSelected,
  REASON_METADATA,
} from "../../src/common/dead-letter-selection";
import type { DeadLetterReason } from "../types";

export type { DeadLetterSelection } from "../../src/common/dead-letter-selection";

/**
 * A dead letter as `twin dead-letters list` shows it, from the blob's name and the metadata the
 * service writes (src/common/dead-letter-selection.ts, src/delivery/dead-letter-claims.ts; a unit
 * test holds the names in step), selected as the service's redelivery selects: no mark, no key,
 * nothing of the container's SAS.
 */

/** Every reason the service records, in `deadletterreason`. */
export const DEAD_LETTER_REASONS: readonly DeadLetterReason[] = DEAD_LETTER_REASONS_RECORDED;

/** The metadata names the service writes a dead letter with. */
export const DEAD_LETTER_METADATA = {
  reason: REASON_METADATA,
  attempts: "deliveryattempts",
  lastError: "lasterror",
  deadLetteredAt: DEAD_LETTERED_AT_METADATA,
  redelivered: "redelivered",
} as const;

export interface DeadLetter {
  blob: string;
  /** The event's id, from the blob's name; undefined when the name holds only its hash (a very long id). */
  eventId: string | undefined;
  reason: string | undefined;
  attempts: number | undefined;
  lastError: string | undefined;
  /** When it was (last) dead-lettered: `deadletteredat`, else the blob's creation time, else its hour folder. */
  deadLetteredAt: string | undefined;
  /** When a redelivery requeued it; undefined when none did since it was (last) dead-lettered. */
  redelivered: string | undefined;
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

export function deadLetterOf(blob: DeadLetterBlob): DeadLetter {
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
    deadLetteredAt: deadLetterWrittenAt(blob)?.toISOString(),
    redelivered: metadata[DEAD_LETTER_METADATA.redelivered],
  };
}

/** Whether the dead letter is one the selection asks for, as the service's redelivery decides it. */
export function isSelected(deadLetter: DeadLetter, selection: DeadLetterSelection): boolean {
  const at = deadLetter.deadLetteredAt === undefined ? undefined : new Date(deadLetter.deadLetteredAt);
  return isDeadLetterSelected(deadLetter.reason, at, selection);
}
