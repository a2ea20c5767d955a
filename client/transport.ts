import {
  createDefaultHttpClient,
  createHttpHeaders,
  createPipelineFromOptions,
  createPipelineRequest,
  type HttpClient,
  type Pipeline,
  type PipelineRequest,
  type PipelineResponse,
  proxyPolicyName,
  redirectPolicyName,
  retryPolicy,
} from "@azure/core-rest-pipeline";
import { type AzureLogger, createClientLogger } from "@azure/logger";
import { loopbackBearerPolicy } from "./bearer-policy";
import { type CallerAuthentication, callerAuthentication } from "./caller-authentication";
import type { ConnectionOptions, CredentialAuthentication, KeyAuthentication } from "./client-options";
import {
  type CallRetryScope,
  perTryTimeoutPolicy,
  resolveRetryOptions,
  retryAfterMs,
  serviceRetryStrategy,
} from "./retry-policy";
import { serviceErrorFrom } from "./service-error";
import { CLIENT_VERSION, USER_AGENT_NAME } from "./version";

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
  /** Sent without the key or token (`/health`): they go only where they are needed. */
  anonymous?: boolean;
  /** Answer a 429/503 at once instead of retrying it (a readiness probe wants the answer). */
  noRetry?: boolean;
  signal?: AbortSignal | undefined;
}

export type TransportOptions = Pick<
  ConnectionOptions,
  "endpoint" | "retry" | "userAgentOptions" | "proxyOptions"
> &
  (KeyAuthentication | CredentialAuthentication);

/** The @azure/logger namespace: `AZURE_LOG_LEVEL=info` logs each try as `azure:<this>:info …`. */
export const LOGGER_NAME = "twin-resource-service-client";

/**
 * What a log line (and a trace span's URL) may show besides core-rest-pipeline's own allow-lists;
 * every other header and query value is written as REDACTED. The key travels as `x-functions-key`
 * (or, on Azure's side, a `code` query parameter), a token as `Authorization`: none of them is, nor
 * may ever be, on these lists.
 */
export const LOGGED_HEADER_NAMES: readonly string[] = ["retry-after-ms", "x-ms-retry-after-ms"];
export const LOGGED_QUERY_PARAMETERS: readonly string[] = ["$top", "$skipToken"];

/**
 * Sends calls to the service through an Azure SDK pipeline (@azure/core-rest-pipeline), in policy
 * order: proxy (HTTPS_PROXY or `proxyOptions`), User-Agent, the retry policy (429/503 honouring
 * Retry-After; network failures of idempotent calls), a span per try (@azure/core-tracing: a
 * no-op unless OpenTelemetry is set up), the per-try timeout, the bearer token (with a
 * credential: see loopbackBearerPolicy), and a log line per try with headers and query values
 * redacted (@azure/logger, AZURE_LOG_LEVEL). Redirects are not followed, so the key or token never
 * leaves the endpoint. Refused answers become ServiceErrors; a call that cannot reach
 * the service rejects with the pipeline's RestError (`code`: ECONNRESET, ECONNREFUSED, ETIMEDOUT, …).
 */
export class Transport {
  private readonly base: URL;
  private readonly authentication: CallerAuthentication;
  private readonly pipeline: Pipeline;
  private readonly httpClient: HttpClient;
  /** The call each request in flight was made for, for the retry strategy. */
  private readonly scopes: WeakMap<PipelineRequest, CallRetryScope>;
  /** The requests in flight that go without the key or token. */
  private readonly anonymous: WeakSet<PipelineRequest>;

  constructor(options: TransportOptions) {
    this.base = parseEndpoint(options.endpoint);
    this.authentication = callerAuthentication(options, this.base);
    // Assigned here, not as a field initializer: Pulumi's closure serializer (this class runs in
    // dynamic providers) rebuilds a class from its constructor and methods, and drops initializers.
    this.scopes = new WeakMap();
    this.anonymous = new WeakSet();
    const retry = resolveRetryOptions(options.retry);
    const logger = createClientLogger(LOGGER_NAME);
    const ownAgent = `${USER_AGENT_NAME}/${CLIENT_VERSION}`;
    const callerPrefix = options.userAgentOptions?.userAgentPrefix?.trim();
    this.pipeline = createPipelineFromOptions({
      userAgentOptions: { userAgentPrefix: callerPrefix ? `${callerPrefix} ${ownAgent}` : ownAgent },
      loggingOptions: {
        logger: logger.info,
        additionalAllowedHeaderNames: [...LOGGED_HEADER_NAMES],
        additionalAllowedQueryParameters: [...LOGGED_QUERY_PARAMETERS],
      },
      ...(options.proxyOptions && { proxyOptions: options.proxyOptions }),
    });
    // The pipeline's default retry policy retries 5xx and network failures of every method alike.
    this.pipeline.removePolicy({ phase: "Retry" });
    this.pipeline.removePolicy({ name: redirectPolicyName });
    this.pipeline.addPolicy(
      retryPolicy([serviceRetryStrategy(retry, (request) => this.scopes.get(request))], {
        maxRetries: retry.maxRetries,
        logger,
      }),
      { phase: "Retry" },
    );
    this.pipeline.addPolicy(perTryTimeoutPolicy(retry.tryTimeoutMs), { afterPhase: "Retry" });
    this.signRequests(options, logger);
    this.httpClient = createDefaultHttpClient();
  }

  /**
   * With a credential, a token on every call that needs one. Over plain http (loopback only) the
   * request goes straight to the endpoint, never through a proxy: a proxy is a hop that would see
   * the token in clear text, and it may not even be on this machine.
   */
  private signRequests(options: TransportOptions, logger: AzureLogger): void {
    const authentication = this.authentication;
    if (authentication.kind !== "credential") return;
    if (this.base.protocol === "http:") {
      if (options.proxyOptions) {
        throw new TypeError(
          "A token is not sent through a proxy over plain http: use https, or no proxyOptions",
        );
      }
      this.pipeline.removePolicy({ name: proxyPolicyName });
    }
    this.pipeline.addPolicy(
      loopbackBearerPolicy({
        credential: authentication.credential,
        scopes: authentication.scopes,
        needsToken: (request) => !this.anonymous.has(request),
        logger,
      }),
      { phase: "Sign" },
    );
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

  /** The answer, when its status is one the call expects; else a ServiceError (after any retries). */
  async send(call: HttpCall): Promise<Response> {
    const request = this.request(call);
    this.scopes.set(request, { expect: call.expect, ...(call.noRetry && { noRetry: true }) });
    if (call.anonymous) this.anonymous.add(request);
    let answer: PipelineResponse;
    try {
      answer = await this.pipeline.sendRequest(this.httpClient, request);
    } catch (error) {
      // The caller's abort rejects with the caller's reason, as `fetch` does, not the pipeline's AbortError.
      if (call.signal?.aborted) throw call.signal.reason;
      throw error;
    }
    const response = toResponse(answer);
    if (call.expect.includes(response.status)) return response;
    throw await serviceErrorFrom(response, retryAfterMs(answer.headers));
  }

  private request(call: HttpCall): PipelineRequest {
    const headers = createHttpHeaders({ accept: "application/json" });
    if (!call.anonymous && this.authentication.kind === "key") {
      headers.set("x-functions-key", this.authentication.key);
    }
    for (const [name, value] of Object.entries(call.headers ?? {})) {
      if (value !== undefined) headers.set(name, value);
    }
    if (call.body !== undefined) headers.set("content-type", call.contentType ?? "application/json");
    return createPipelineRequest({
      url: call.url.href,
      method: call.method,
      headers,
      ...(call.body !== undefined && { body: JSON.stringify(call.body) }),
      ...(call.signal && { abortSignal: call.signal }),
      allowInsecureConnection: this.base.protocol === "http:",
    });
  }
}

/** Statuses whose answers carry no body (a WHATWG Response refuses one for them). */
const NULL_BODY_STATUSES: readonly number[] = [101, 103, 204, 205, 304];

/** The pipeline's answer as a WHATWG Response, the shape the resource calls read. */
function toResponse(answer: PipelineResponse): Response {
  const headers = new Headers();
  for (const [name, value] of answer.headers) headers.set(name, value);
  const body = NULL_BODY_STATUSES.includes(answer.status) ? null : (answer.bodyAsText ?? "");
  return new Response(body, { status: answer.status, headers });
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
