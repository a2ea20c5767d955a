/**
 * Which dead letters a call is about, decided alike by the service's redelivery and by
 * `twin dead-letters list`, which reads the same blobs with the operator's access (so a window or
 * reason given to one selects what it selects in the other). Imports nothing: the client package
 * compiles it along with itself.
 */

/** The `deadletterreason` values the writer records. */
export const DEAD_LETTER_REASONS = ["MaxDeliveryAttemptsExceeded", "TtlExpired", "MessageRefused"] as const;

/** Why the event was dead-lettered: one of DEAD_LETTER_REASONS. */
export const REASON_METADATA = "deadletterreason";

/** When the event was last dead-lettered (ISO time): the first write, or a later one of the same blob. */
export const DEAD_LETTERED_AT_METADATA = "deadletteredat";

/** What the selection reads of a dead-letter blob, as a listing gives it. */
export interface DeadLetterBlob {
  name: string;
  metadata?: Record<string, string>;
  createdOn?: Date;
}

/** Dead letters of one reason (compared exactly) written within an inclusive window; any by default. */
export interface DeadLetterSelection {
  reason?: string;
  from?: Date;
  to?: Date;
}

/**
 * When a dead letter was (last) written: the time the writer records, else the blob's creation
 * time (which setting metadata leaves alone), else the hour folder of its name.
 */
export function deadLetterWrittenAt(blob: DeadLetterBlob): Date | undefined {
  const recorded = Date.parse(blob.metadata?.[DEAD_LETTERED_AT_METADATA] ?? "");
  if (!Number.isNaN(recorded)) return new Date(recorded);
  if (blob.createdOn) return blob.createdOn;
  const hour = /\/(\d{4})\/(\d{2})\/(\d{2})\/(\d{2})\/[^/]+$/.exec(blob.name);
  return hour ? new Date(`${hour[1]}-${hour[2]}-${hour[3]}T${hour[4]}:00:00Z`) : undefined;
}

/** Whether a dead letter of this reason, written then, is selected; one of no known time only without a window. */
export function isDeadLetterSelected(
  reason: string | undefined,
  writtenAt: Date | undefined,
  selection: DeadLetterSelection,
): boolean {
  if (selection.reason !== undefined && reason !== selection.reason) return false;
  if (writtenAt === undefined) return selection.from === undefined && selection.to === undefined;
  return (
    (selection.from === undefined || writtenAt.getTime() >= selection.from.getTime()) &&
    (selection.to === undefined || writtenAt.getTime() <= selection.to.getTime())
  );
}
