import type { RetryOptions } from "./client-options";
import { DEFAULT_RETRY } from "./client-options";

/** 429 (throttled) and 503 (a backing store unreachable): the request was not carried out, try later. */
export function isRetriableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * The wait a response asks for, in milliseconds: `retry-after-ms` / `x-ms-retry-after-ms` (Azure's),
 * else `Retry-After` as delta-seconds or an HTTP date. Undefined when none is given or readable.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  for (const name of ["retry-after-ms", "x-ms-retry-after-ms"]) {
    const value = headers.get(name);
    if (value !== null && /^\d+$/.test(value.trim())) return Number(value.trim());
  }
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** Whether to try again after the `attempt`-th retriable answer (1-based), and after how long. */
export function decideRetry(
  options: Required<RetryOptions>,
  attempt: number,
  askedDelayMs: number | undefined,
): RetryDecision {
  if (attempt > options.maxRetries) return { retry: false };
  const delayMs = askedDelayMs ?? Math.min(options.defaultDelayMs * 2 ** (attempt - 1), options.maxDelayMs);
  // Never retry sooner than asked: a wait longer than the cap hands the decision to the caller.
  if (delayMs > options.maxDelayMs) return { retry: false };
  return { retry: true, delayMs };
}

export function resolveRetryOptions(options: RetryOptions | undefined): Required<RetryOptions> {
  const resolved = { ...DEFAULT_RETRY, ...definedOnly(options ?? {}) };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`retry.${name} must be a non-negative number`);
    }
  }
  return resolved;
}

function definedOnly(options: RetryOptions): RetryOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    // Declared before the handlers that use it: Pulumi's closure serializer (this code runs inside
    // dynamic providers) cannot follow a closure to a variable declared after it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
