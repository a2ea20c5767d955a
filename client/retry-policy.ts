import {
  type PipelinePolicy,
  type PipelineRequest,
  type PipelineResponse,
  RestError,
  type RetryStrategy,
} from "@azure/core-rest-pipeline";
import type { RetryOptions } from "./client-options";
import { DEFAULT_RETRY } from "./client-options";

// Plain values and functions only at module level: this code runs inside Pulumi dynamic providers,
// whose closure serializer captures what a function refers to (and cannot follow a closure to a
// variable declared after it).

/** 429 (throttled) and 503 (a backing store unreachable): the request was not carried out, try later. */
export function isRetriableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * Failures of the connection rather than answers: reset (a pooled keep-alive socket the server had
 * closed), refused (the app restarting), broken pipe, unreachable network, a DNS answer to try again,
 * the body cut off mid-way (PARSE_ERROR), and a try past its timeout (ETIMEDOUT, see perTryTimeoutPolicy).
 * ENOTFOUND is not among them: a name that does not resolve will not resolve a second later.
 */
export const TRANSIENT_NETWORK_CODES: readonly string[] = [
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "PARSE_ERROR",
];

/** Of those, the failures before anything was sent: connection refused, a DNS answer to try again. */
export const NOT_SENT_CODES: readonly string[] = ["ECONNREFUSED", "EAI_AGAIN"];

export function isTransientNetworkError(error: RestError): boolean {
  return error.statusCode === undefined && TRANSIENT_NETWORK_CODES.includes(error.code ?? "");
}

/**
 * The methods any transient network failure is retried for (a failure before anything was sent,
 * NOT_SENT_CODES, is retried for every method). GET, PUT and DELETE are idempotent by HTTP; PATCH
 * here is a merge patch (the given fields set to the given values), so a replay leaves what one
 * call leaves. A conditional write replayed after the first try had landed answers 412 (If-Match,
 * If-None-Match) and a replayed DELETE answers 204: never a second effect, and no worse for the
 * caller than the network error it replaces. POST (event ingest) is not retried on a network
 * failure: the events may have been queued, and a replay would deliver them twice.
 */
export function isIdempotentMethod(method: string): boolean {
  return ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"].includes(method.toUpperCase());
}

/** What the retry strategy needs to know of a call beyond its request. */
export interface CallRetryScope {
  /** Statuses that are answers to this call (health expects 503): never retried. */
  expect: readonly number[];
  /** Answer a 429/503 at once instead of retrying it. */
  noRetry?: boolean;
}

/** The headers of an answer, WHATWG `Headers` or the pipeline's `HttpHeaders`. */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

/**
 * The wait a response asks for, in milliseconds: `retry-after-ms` / `x-ms-retry-after-ms` (Azure's),
 * else `Retry-After` as delta-seconds or an HTTP date. Undefined when none is given or readable.
 */
export function retryAfterMs(headers: HeaderSource, now = Date.now()): number | undefined {
  for (const name of ["retry-after-ms", "x-ms-retry-after-ms"]) {
    const value = headers.get(name);
    if (typeof value === "string" && /^\d+$/.test(value.trim())) return Number(value.trim());
  }
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** The options a retry decision reads. */
export type RetryTiming = Required<Pick<RetryOptions, "maxRetries" | "defaultDelayMs" | "maxDelayMs">>;

/** Whether to try again after the `attempt`-th failed try (1-based), and after how long. */
export function decideRetry(
  options: RetryTiming,
  attempt: number,
  askedDelayMs: number | undefined,
): RetryDecision {
  if (attempt > options.maxRetries) return { retry: false };
  const delayMs = askedDelayMs ?? Math.min(options.defaultDelayMs * 2 ** (attempt - 1), options.maxDelayMs);
  // Never retry sooner than asked: a wait longer than the cap hands the decision to the caller.
  if (delayMs > options.maxDelayMs) return { retry: false };
  return { retry: true, delayMs };
}

/**
 * The client's strategy for core-rest-pipeline's `retryPolicy`: a 429/503 is retried for every
 * method after the wait it asks for (or `defaultDelayMs`, doubling); a transient network failure
 * (see TRANSIENT_NETWORK_CODES) after `defaultDelayMs`, doubling, for idempotent methods, or for
 * any method when nothing was sent (NOT_SENT_CODES).
 * Anything else is the caller's. `scopeOf` finds the call a request was made for.
 */
export function serviceRetryStrategy(
  options: RetryTiming,
  scopeOf: (request: PipelineRequest) => CallRetryScope | undefined,
): RetryStrategy {
  return {
    name: "twinServiceRetryStrategy",
    retry({ retryCount, response, responseError }) {
      const attempt = retryCount + 1;
      if (response === undefined) {
        if (responseError === undefined) return { skipStrategy: true };
        const method = responseError.request?.method ?? "POST";
        const notSent = NOT_SENT_CODES.includes(responseError.code ?? "");
        if (!isTransientNetworkError(responseError) || !(notSent || isIdempotentMethod(method))) {
          return { errorToThrow: responseError };
        }
        const decision = decideRetry(options, attempt, undefined);
        return decision.retry ? { retryAfterInMs: decision.delayMs } : { errorToThrow: responseError };
      }
      const scope = scopeOf(response.request);
      if (!isRetriableStatus(response.status) || scope?.noRetry || scope?.expect.includes(response.status)) {
        return { skipStrategy: true };
      }
      const decision = decideRetry(options, attempt, retryAfterMs(response.headers));
      return decision.retry ? { retryAfterInMs: decision.delayMs } : { skipStrategy: true };
    },
  };
}

/**
 * Bounds each try (connecting, sending, and reading the whole answer) to `timeoutMs`; 0 leaves it
 * unbounded. A try past it is abandoned with a RestError of code ETIMEDOUT, which the retry policy
 * (placed before this one) retries for idempotent calls. The caller's own abort stays an abort.
 */
export function perTryTimeoutPolicy(timeoutMs: number): PipelinePolicy {
  return {
    name: "perTryTimeoutPolicy",
    async sendRequest(request: PipelineRequest, next): Promise<PipelineResponse> {
      if (!(timeoutMs > 0)) return next(request);
      const outer = request.abortSignal;
      const controller = new AbortController();
      let timedOut = false;
      const onOuterAbort = () => controller.abort();
      if (outer?.aborted) controller.abort();
      outer?.addEventListener("abort", onOuterAbort, { once: true });
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      request.abortSignal = controller.signal;
      try {
        return await next(request);
      } catch (error) {
        if (timedOut && !outer?.aborted) {
          throw new RestError(`The service did not answer within ${timeoutMs} ms (retry.tryTimeoutMs).`, {
            code: "ETIMEDOUT",
            request,
          });
        }
        throw error;
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener("abort", onOuterAbort);
        request.abortSignal = outer;
      }
    },
  };
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
