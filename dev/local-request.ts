import { HttpRequest, type HttpRequestInit } from "@azure/functions";

/** Any method Fetch accepts: the stand-in for one it refuses. */
const STAND_IN_METHOD = "OPTIONS";

/** Methods a Fetch Request refuses (TypeError). */
const REFUSED_BY_FETCH = new Set(["CONNECT", "TRACE", "TRACK"]);

/** What Fetch sets for a string body when the request names no content type. */
const TEXT_CONTENT_TYPE = "text/plain;charset=UTF-8";

/** A header name as Node's parser hands it on: a token (RFC 9110 §5.6.2), in lower case. */
const LOWER_TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** A token in any case, as a name read from the record may be asked for. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A value Headers keeps as it is: bytes only, no NUL, CR or LF, nothing to trim at either end. */
const PLAIN_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

function isPlain(record: Record<string, string>): boolean {
  // Headers reads a record into an object of its own, where a member __proto__ is lost.
  if (Object.hasOwn(record, "__proto__")) return false;
  for (const name of Object.keys(record)) {
    if (!LOWER_TOKEN.test(name) || !PLAIN_VALUE.test(record[name] as string)) return false;
  }
  return true;
}

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

type HeaderEntries = ReturnType<Headers["entries"]>;

/** Headers' methods as methods (its type declares them as properties, which a subclass cannot override). */
interface HeadersMethods {
  get(name: string): string | null;
  has(name: string): boolean;
  append(name: string, value: string): void;
  set(name: string, value: string): void;
  delete(name: string): void;
  getSetCookie(): string[];
  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void;
  keys(): ReturnType<Headers["keys"]>;
  values(): ReturnType<Headers["values"]>;
  entries(): HeaderEntries;
  [Symbol.iterator](): HeaderEntries;
}

const HeadersClass = Headers as unknown as new (init?: Record<string, string>) => HeadersMethods;

/**
 * The request's Headers, read from the received record until something needs the real list. A
 * handler reads a few headers by name; filling a Headers validates and copies every one, a few
 * microseconds a request. When every name is a lower-case token and every value one Headers keeps
 * unchanged (as Node's parser hands them on), get and has answer from the record exactly as the
 * filled Headers would; anything else (iteration, a change, an unusual name) fills it first, and a
 * record with anything unusual is filled at once, so every error is the one Headers gives.
 */
class ReceivedHeaders extends HeadersClass {
  #record: Record<string, string> | undefined;

  constructor(record: Record<string, string>) {
    const lazy = isPlain(record);
    super(lazy ? undefined : record);
    this.#record = lazy ? record : undefined;
  }

  override get(name: string): string | null {
    const record = this.#record;
    if (record !== undefined && typeof name === "string" && TOKEN.test(name)) {
      const key = name.toLowerCase();
      return Object.hasOwn(record, key) ? (record[key] as string) : null;
    }
    this.fill();
    return super.get(name);
  }

  override has(name: string): boolean {
    const record = this.#record;
    if (record !== undefined && typeof name === "string" && TOKEN.test(name)) {
      return Object.hasOwn(record, name.toLowerCase());
    }
    this.fill();
    return super.has(name);
  }

  override append(name: string, value: string): void {
    this.fill();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.fill();
    super.set(name, value);
  }

  override delete(name: string): void {
    this.fill();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    this.fill();
    return super.getSetCookie();
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.fill();
    super.forEach(callback, thisArg);
  }

  override keys(): ReturnType<Headers["keys"]> {
    this.fill();
    return super.keys();
  }

  override values(): ReturnType<Headers["values"]> {
    this.fill();
    return super.values();
  }

  override entries(): HeaderEntries {
    this.fill();
    return super.entries();
  }

  override [Symbol.iterator](): HeaderEntries {
    this.fill();
    return super[Symbol.iterator]();
  }

  [INSPECT](...args: unknown[]): unknown {
    this.fill();
    const inspect = (Headers.prototype as unknown as Record<symbol, (...a: unknown[]) => unknown>)[INSPECT];
    return inspect ? inspect.apply(this, args) : this;
  }

  /** Appends the record's headers, in its order, as new Headers(record) would; once. */
  private fill(): void {
    const record = this.#record;
    if (record === undefined) return;
    this.#record = undefined;
    for (const name of Object.keys(record)) super.append(name, record[name] as string);
  }
}

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
    this.#headers ??= new ReceivedHeaders(this.headerInit) as unknown as Headers;
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
