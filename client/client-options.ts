import type { TokenCredential } from "@azure/core-auth";
import type { ProxySettings } from "@azure/core-rest-pipeline";
import {
  ASSESSMENT_API_VERSIONS,
  newestApiVersion,
  RESOURCE_API_VERSIONS,
  ROLE_ASSIGNMENT_API_VERSIONS,
} from "../src/common/api-versions";

/**
 * How a TwinServiceClient reaches the service, how it proves who calls, and how it retries: with a
 * Microsoft Entra ID token (`credential`, for a service running with AUTH_MODE=entra) or a Functions
 * key (`key`, for one running with AUTH_MODE=keys), never both.
 */
export type TwinServiceClientOptions = ConnectionOptions & (KeyAuthentication | CredentialAuthentication);

/** A Functions key, sent as `x-functions-key`. */
export interface KeyAuthentication {
  /** A function key (or the master key: the assessment write path takes only that). Never logged. */
  key: string;
  credential?: never;
  credentialScopes?: never;
}

/** A bearer token from a TokenCredential, sent as `Authorization: Bearer …`. */
export interface CredentialAuthentication {
  /**
   * Where tokens come from: any `@azure/core-auth` TokenCredential, e.g. `new DefaultAzureCredential()`
   * from `@azure/identity`. Asked again before a token expires. Tokens are never logged, and go only
   * over https, or plain http to loopback (localhost, 127.0.0.0/8, [::1]): any other http endpoint is
   * refused when the client is made.
   */
  credential: TokenCredential;
  /**
   * What the tokens are for: the service's application, `api://<its client id>/.default` (or
   * `<its client id>/.default`); the service's AUTH_AUDIENCE names it. Required: there is no
   * default, each deployment has its own application.
   */
  credentialScopes: string | string[];
  key?: never;
}

export interface ConnectionOptions {
  /** The service's base URL, e.g. `https://<app>.azurewebsites.net` or `http://127.0.0.1:7071`. */
  endpoint: string;
  /** Used where a resource path needs a subscription and the call does not name one. */
  subscriptionId?: string;
  /** The api-version sent with each request; defaults to the newest each resource type supports. */
  apiVersion?: ApiVersions;
  /** How 429/503 answers and network failures are retried, and how long one try may take. */
  retry?: RetryOptions;
  /**
   * `userAgentPrefix` goes before the client's own User-Agent
   * (`twin-resource-service-client/<version> core-rest-pipeline/<version> Node/<version> (<OS>; <arch>)`).
   */
  userAgentOptions?: { userAgentPrefix?: string };
  /**
   * An HTTP(S) proxy to send every request through. Absent, the environment's HTTPS_PROXY (else
   * ALL_PROXY, else HTTP_PROXY; for http and https endpoints alike), less the hosts in NO_PROXY.
   */
  proxyOptions?: ProxySettings;
}

export interface ApiVersions {
  /** AuthenticationProfile, QueueEndpoint and event ingest. */
  resources?: string;
  /** ClusterAssessment: `2023-04-01-preview`, `2023-05-01-preview` or `2023-09-09-preview`. */
  assessments?: string;
  /** Role assignments: `2022-04-01`. */
  roleAssignments?: string;
}

/**
 * Retries: a 429/503 answer for every call, after the wait it asks for; a network failure
 * (connection reset, a try past `tryTimeoutMs`, …) only for idempotent calls: GET, PUT, DELETE and
 * PATCH (a merge patch), not POST (event ingest, where a replay could queue the events twice) unless
 * nothing was sent (connection refused). A conditional write replayed after its first try had
 * landed answers 412.
 */
export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  maxRetries?: number;
  /**
   * The wait before retrying a network failure, or a 429/503 that carries no Retry-After, doubled
   * on each retry. Default 1000 ms.
   */
  defaultDelayMs?: number;
  /**
   * The longest wait the client will honour. A Retry-After asking for longer ends the retries and
   * the error is thrown with `retryAfterMs`, so the caller can decide. Default 60000 ms.
   */
  maxDelayMs?: number;
  /**
   * How long one try may take, connecting and reading the whole answer included, before it is
   * abandoned: retried when the call is idempotent, else thrown as a RestError of code ETIMEDOUT.
   * 0: no limit. Default 60000 ms.
   */
  tryTimeoutMs?: number;
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

/** The newest version of each family, as the service defaults to (src/common/api-versions.ts). */
export const DEFAULT_API_VERSIONS: Required<ApiVersions> = {
  resources: newestApiVersion(RESOURCE_API_VERSIONS),
  assessments: newestApiVersion(ASSESSMENT_API_VERSIONS),
  roleAssignments: newestApiVersion(ROLE_ASSIGNMENT_API_VERSIONS),
};

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxRetries: 3,
  defaultDelayMs: 1000,
  maxDelayMs: 60_000,
  tryTimeoutMs: 60_000,
};
