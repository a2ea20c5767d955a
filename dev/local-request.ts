import { HttpRequest, type HttpRequestInit } from "@azure/functions";

/** Any method Fetch accepts: the stand-in for one it refuses. */
const STAND_IN_METHOD = "OPTIONS";

/** Methods a Fetch Request refuses (TypeError). */
const REFUSED_BY_FETCH = new Set(["CONNECT", "TRACE", "TRACK"]);

/** What Fetch sets for a string body when the request names no content type. */
const TEXT_CONTENT_TYPE = "text/plain;charset=UTF-8";

function bodyUnusable(): TypeError {
  return new TypeError("Body is unusable: Body has already been read");
}

/**
 * The Fetch Request an HttpRequest wraps, made only as far as a handler reads it. Building an
 * undici Request costs tens of microseconds, and over a hundred with a body (a web stream, its
 * transfer machinery); a handler reads the URL, the method, a few headers and the body's bytes at
 * most. So the headers are a real Headers, made on first read; arrayBuffer, text, json and blob
 * answer from the received bytes with Fetch's semantics (once only, then "Body is unusable"); and
 * anything else (the body stream, formData, clone) builds the real Request first and delegates.
 */
class ReceivedRequest {
  #headers: Headers | undefined;
  #native: Request | undefined;
  #used = false;

  constructor(
    readonly url: string,
    readonly method: string,
    private readonly headerInit: Record<string, string>,
    /** Undefined: a request without a body (GET, HEAD, or one Fetch would not take a body for). */
    private readonly bytes: Buffer | undefined,
  ) {}

  get headers(): Headers {
    this.#headers ??= new Headers(this.headerInit);
    return this.#headers;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.native().body;
  }

  get bodyUsed(): boolean {
    return this.#used || (this.#native?.bodyUsed ?? false);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#native) return this.#native.arrayBuffer();
    const bytes = this.take();
    // The received bytes are this request's alone: when they fill their ArrayBuffer, no copy is needed.
    if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength)
      return bytes.buffer as ArrayBuffer;
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    if (this.#native) return this.#native.text();
    // Fetch decodes UTF-8 and drops a byte order mark; TextDecoder does both by default.
    return new TextDecoder().decode(this.take());
  }

  async json(): Promise<unknown> {
    if (this.#native) return this.#native.json();
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    if (this.#native) return this.#native.blob();
    const bytes = this.take();
    return new Blob([bytes], { type: this.headers.get("content-type") ?? "" });
  }

  async formData(): Promise<FormData> {
    return this.native().formData();
  }

  clone(): Request {
    if (this.#used) throw new TypeError("Request.clone: Body has already been consumed.");
    return this.native().clone();
  }

  private take(): Buffer {
    if (this.#used) throw bodyUnusable();
    this.#used = true;
    return this.bytes ?? Buffer.alloc(0);
  }

  /** The real Request, for what only it can do; its body is gone if the bytes were read already. */
  private native(): Request {
    if (this.#native === undefined) {
      const acceptable = !REFUSED_BY_FETCH.has(this.method) && this.method === this.method.toUpperCase();
      const body = this.#used ? undefined : this.bytes;
      this.#native = new Request(this.url, {
        method: acceptable ? this.method : STAND_IN_METHOD,
        headers: this.headers,
        ...(body !== undefined && { body }),
      });
    }
    return this.#native;
  }
}

function bodyBytes(body: HttpRequestInit["body"]): Buffer | undefined {
  if (body?.bytes) return Buffer.isBuffer(body.bytes) ? body.bytes : Buffer.from(body.bytes);
  if (body?.string) return Buffer.from(body.string);
  return undefined;
}

/**
 * An HttpRequest reporting the method as received, over a Fetch Request made lazily (see
 * ReceivedRequest). The real Fetch Request refuses CONNECT, TRACE and TRACK (TypeError),
 * upper-cases some others (`get` becomes GET) and warns about `patch`; the local host still
 * answers those requests (405), so for them, and for any method not in upper case, no body is
 * kept (nor would a Fetch Request with the stand-in method carry one). Such requests reach only
 * the host's own error handlers, never a route's (routes match upper-case methods). GET and HEAD
 * bodies are dropped here, as @azure/functions would drop them (with a warning for each request):
 * no handler of a GET or HEAD reads a body. A string body without a Content-Type gets Fetch's
 * text/plain one.
 */
export function requestAsReceived(method: string, init: Omit<HttpRequestInit, "method">): HttpRequest {
  const keepsBody =
    method === method.toUpperCase() && method !== "GET" && method !== "HEAD" && !REFUSED_BY_FETCH.has(method);
  const bytes = keepsBody ? bodyBytes(init.body) : undefined;
  let headers = init.headers ?? {};
  if (bytes !== undefined && init.body?.string && !Object.keys(headers).some(isContentType)) {
    headers = { ...headers, "content-type": TEXT_CONTENT_TYPE };
  }
  const url = init.url ?? "";
  const nativeRequest = new ReceivedRequest(url, method, headers, bytes) as unknown as Request;
  // nativeRequest: how @azure/functions itself wraps the Request of a streamed invocation.
  const wrapped = { method, url, nativeRequest, query: init.query, params: init.params };
  return new HttpRequest(wrapped as HttpRequestInit);
}

function isContentType(name: string): boolean {
  return name.toLowerCase() === "content-type";
}
