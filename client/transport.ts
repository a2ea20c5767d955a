import type { RetryOptions } from "./client-options";
import { decideRetry, isRetriableStatus, resolveRetryOptions, retryAfterMs, sleep } from "./retry-policy";
import { serviceErrorFrom } from "./service-error";

export type HttpMethod = "GET" | "PUT" | "PATCH" | "DELETE" | "POST";

export interface HttpCall {
  method: HttpMethod;
  /** Built by `Transport.url` or `Transport.followLink`, so it is known to be under the endpoint. */
  url: URL;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string | undefined>;
  /** Statuses that are answers rather than errors (e.g. 304 for a conditional read). */
  expect: readonly number[];
  /** Sent without the key (`/health`): the key goes only where it is needed. */
  anonymous?: boolean;
  /** Answer a 429/503 at once instead of retrying it (a readiness probe wants the answer). */
  noRetry?: boolean;
  signal?: AbortSignal | undefined;
}

export interface TransportOptions {
  endpoint: string;
  key: string;
  retry?: RetryOptions;
}

/**
 * Sends calls to the service on the platform `fetch`: the key header, JSON bodies, retries of
 * 429/503 honouring Retry-After, and refused answers turned into ServiceErrors.
 */
export class Transport {
  private readonly base: URL;
  private readonly key: string;
  private readonly retry: Required<RetryOptions>;

  constructor(options: TransportOptions) {
    this.base = parseEndpoint(options.endpoint);
    if (typeof options.key !== "string" || options.key === "") {
      throw new TypeError("key must be a non-empty string (a function key, or the master key)");
    }
    this.key = options.key;
    this.retry = resolveRetryOptions(options.retry);
  }

  /** A URL under the endpoint: `path` is made of already-encoded segments. */
  url(path: string, query: Record<string, string | undefined> = {}): URL {
    const url = new URL(`${this.base.pathname.replace(/\/$/, "")}${path}`, this.base);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    return url;
  }

  /**
   * A list's `nextLink`, checked to point under the endpoint: the key travels with the request, so
   * a link elsewhere (a tampered or misconfigured answer) is refused rather than followed.
   */
  followLink(nextLink: string): URL {
    let url: URL;
    try {
      url = new URL(nextLink);
    } catch {
      throw new TypeError("nextLink is not an absolute URL");
    }
    const basePath = this.base.pathname.replace(/\/?$/, "/");
    if (url.origin !== this.base.origin || !`${url.pathname}/`.startsWith(basePath)) {
      throw new TypeError("nextLink points outside the service endpoint; it is not followed with the key");
    }
    return url;
  }

  async send(call: HttpCall): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(call.url, this.requestInit(call));
      if (call.expect.includes(response.status)) return response;
      const askedDelayMs = retryAfterMs(response.headers);
      if (isRetriableStatus(response.status) && !call.noRetry) {
        const decision = decideRetry(this.retry, attempt, askedDelayMs);
        if (decision.retry) {
          await response.body?.cancel();
          await sleep(decision.delayMs, call.signal);
          continue;
        }
      }
      throw await serviceErrorFrom(response, askedDelayMs);
    }
  }

  private requestInit(call: HttpCall): RequestInit {
    const headers = new Headers({ accept: "application/json" });
    if (!call.anonymous) headers.set("x-functions-key", this.key);
    for (const [name, value] of Object.entries(call.headers ?? {})) {
      if (value !== undefined) headers.set(name, value);
    }
    const init: RequestInit = { method: call.method, headers, redirect: "error" };
    if (call.signal) init.signal = call.signal;
    if (call.body !== undefined) {
      headers.set("content-type", call.contentType ?? "application/json");
      init.body = JSON.stringify(call.body);
    }
    return init;
  }
}

function parseEndpoint(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TypeError("endpoint must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError("endpoint must be an http(s) URL");
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    // A `?code=` or credentials in the URL would travel where the key header is kept out of.
    throw new TypeError("endpoint must not carry a query, a fragment or credentials; pass the key as `key`");
  }
  return url;
}
