/** How a TwinServiceClient reaches the service and how it retries. */
export interface TwinServiceClientOptions {
  /** The service's base URL, e.g. `https://<app>.azurewebsites.net` or `http://127.0.0.1:7071`. */
  endpoint: string;
  /** A function key (or the master key: the assessment write path takes only that). Never logged. */
  key: string;
  /** Used where a resource path needs a subscription and the call does not name one. */
  subscriptionId?: string;
  /** The api-version sent with each request; defaults to the newest each resource type supports. */
  apiVersion?: ApiVersions;
  /** How 429 and 503 answers are retried. */
  retry?: RetryOptions;
}

export interface ApiVersions {
  /** AuthenticationProfile, QueueEndpoint and event ingest. */
  resources?: string;
  /** ClusterAssessment: `2023-04-01-preview`, `2023-05-01-preview` or `2023-09-09-preview`. */
  assessments?: string;
}

export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  maxRetries?: number;
  /** The wait when a 429/503 carries no Retry-After, doubled on each retry. Default 1000 ms. */
  defaultDelayMs?: number;
  /**
   * The longest wait the client will honour. A Retry-After asking for longer ends the retries and
   * the error is thrown with `retryAfterMs`, so the caller can decide. Default 60000 ms.
   */
  maxDelayMs?: number;
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborts the request, and any wait between retries. */
  signal?: AbortSignal;
}

/** Conditional writes: `ifMatch` an ETag (or `*`: must exist), `ifNoneMatch: "*"` (create only). */
export interface WriteOptions extends CallOptions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

/** PATCH and DELETE take If-Match only. */
export interface MatchOptions extends CallOptions {
  ifMatch?: string;
}

export interface ListOptions extends CallOptions {
  /** Page size, 1 to 1000 (the service's default is 100). */
  top?: number;
}

export interface PageOptions extends ListOptions {
  /** The `nextLink` of the previous page; absent for the first page. */
  nextLink?: string;
}

export const DEFAULT_API_VERSIONS: Required<ApiVersions> = {
  resources: "2026-11-01",
  assessments: "2023-09-09-preview",
};

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxRetries: 3,
  defaultDelayMs: 1000,
  maxDelayMs: 60_000,
};
