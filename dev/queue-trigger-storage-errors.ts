/** The storage service's error code (x-ms-error-code), as the SDK's RestError carries it. */
export function storageErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export function isQueueNotFound(error: unknown): boolean {
  return storageErrorCode(error) === "QueueNotFound";
}

/**
 * The errors after which this host no longer owns a received message: someone else holds it
 * (pop receipt mismatch), it is gone, or its queue is. The real listener ignores exactly these when
 * deleting, releasing or renewing a message; anything else is a real failure.
 */
export function isMessageOwnershipLost(error: unknown): boolean {
  const code = storageErrorCode(error);
  return (
    code === "PopReceiptMismatch" ||
    code === "MessageNotFound" ||
    code === "QueueNotFound" ||
    code === "QueueBeingDeleted" ||
    code === "QueueDisabled"
  );
}
