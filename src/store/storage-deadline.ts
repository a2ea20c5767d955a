/**
 * How long one call to Azure Storage may take, its retries included, before it is abandoned.
 * The storage SDKs do not give up by themselves: their `tryTimeoutInMs` only asks the service to
 * (a `timeout` URL parameter), so against a service that answers nothing at all a call waits as
 * long as the connection stays open, and so does whatever awaits it: a delivery holding its queue
 * message (whose lock the trigger keeps renewing), the local trigger's polling. An abandoned call
 * fails as any storage failure does, so what it was for is retried, never dropped.
 */
export const STORAGE_CALL_DEADLINE_MS = 20_000;

/**
 * The abort signal of one call: a fresh one per call, as the SDKs hang a listener on the signal
 * they are given (one signal for many calls piles them up: a MaxListenersExceededWarning). Any
 * non-negative number of milliseconds, whole or not (what is left of a deadline, half a lock of
 * 1.001 s): AbortSignal.timeout takes whole milliseconds only and throws on anything else, which,
 * from a timer's callback, would end the process.
 */
export function storageDeadline(deadlineMs: number = STORAGE_CALL_DEADLINE_MS): AbortSignal {
  return AbortSignal.timeout(wholeMilliseconds(deadlineMs));
}

/** Rounded up, so a deadline is never cut short; a past one (negative) is 0: abort at once. */
export function wholeMilliseconds(ms: number): number {
  return Math.max(0, Math.ceil(ms));
}
