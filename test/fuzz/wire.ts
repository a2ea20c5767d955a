import * as http from "node:http";
import fc from "fast-check";
import { MAX_BODY_BYTES } from "../../src/http/request-body";
import type { RouteDefinition } from "../../src/http/route";

/** Requests as they go on the wire (node:http, so paths and headers are sent exactly as built). */

/** A JSON value to splice into a body as raw text (too deep for JSON.stringify). */
export class RawJson {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `RawJson(${shorten(this.text)})`;
  }
}

function shorten(text: string, max = 160): string {
  return text.length <= max
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`;
}

/** JSON.stringify, with RawJson values spliced in as they are. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (!(item instanceof RawJson)) return item;
    raws.push(item.text);
    return `\u0001RAW${raws.length - 1}\u0001`;
  });
  return (text ?? "null").replace(
    /"\\u0001RAW(\d+)\\u0001"/g,
    (_match, index: string) => raws[Number(index)] ?? "null",
  );
}

/** A request body, built when sent (a 5 MiB body is not kept around or printed in a report). */
export class Payload {
  private constructor(
    readonly description: string,
    private readonly make: () => Buffer,
    readonly streamed = false,
  ) {}

  static text(text: string): Payload {
    return new Payload(shorten(text), () => Buffer.from(text, "utf8"));
  }

  static json(value: unknown): Payload {
    const text = toJsonText(value);
    return new Payload(shorten(text, 400), () => Buffer.from(text, "utf8"));
  }

  static bytes(description: string, bytes: Buffer): Payload {
    return new Payload(description, () => bytes);
  }

  static lazy(description: string, make: () => Buffer): Payload {
    return new Payload(description, make);
  }

  /** The same bytes, sent with chunked transfer encoding and no Content-Length. */
  chunked(): Payload {
    return new Payload(`${this.description} (chunked)`, this.make, true);
  }

  bytes(): Buffer {
    return this.make();
  }

  [fc.toStringMethod](): string {
    return this.description;
  }
}

export type KeyPlacement = "header" | "query" | "both" | "master" | "function" | "none" | "wrong" | "empty";

/** What a request was built to do; the checks hold the answer to it. */
export interface Intent {
  /** The route that serves this method and path, or undefined when none does. */
  route: RouteDefinition | undefined;
  /** Another method on this path is served: the answer must be 405. */
  methodNotAllowed: boolean;
  /** Every path segment reaches the router as built (no traversal, no raw or empty segment). */
  routable: boolean;
  /** The key sent passes the route's auth level. */
  keyValid: boolean;
  /** Fill If-Match / If-None-Match with the last ETag seen on this path, when sending. */
  knownEtag?: "if-match" | "if-none-match";
  /** Add a $skipToken seen in an earlier nextLink, when sending. */
  knownSkipToken?: boolean;
  /** Which generator made the request. */
  label: string;
}

export class FuzzRequest {
  constructor(
    readonly method: string,
    /** Path and query, exactly as sent. */
    readonly target: string,
    readonly headers: Record<string, string | string[]>,
    readonly body: Payload | undefined,
    readonly intent: Intent,
    /** Wait this long before sending: spreads a concurrent batch so that races interleave. */
    readonly delayMs = 0,
  ) {}

  delayed(delayMs: number): FuzzRequest {
    return new FuzzRequest(this.method, this.target, this.headers, this.body, this.intent, delayMs);
  }

  [fc.toStringMethod](): string {
    const text = describeRequest(
      this.method,
      this.target,
      this.headers,
      this.body?.description,
      this.intent.label,
    );
    return this.delayMs > 0 ? `after ${this.delayMs} ms: ${text}` : text;
  }
}

export function describeRequest(
  method: string,
  target: string,
  headers: Record<string, string | string[]>,
  body: string | undefined,
  label: string,
): string {
  const shownHeaders = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.map((item) => shorten(item, 80)) : shorten(value, 80),
    ]),
  );
  return `${method} ${shorten(target, 300)} headers=${JSON.stringify(shownHeaders)}${body === undefined ? "" : ` body=${body}`} [${label}]`;
}

/** ETags and skip tokens seen in answers, so later requests can be conditional or page on. */
export class Memory {
  readonly etags = new Map<string, string>();
  readonly skipTokens: string[] = [];

  remember(path: string, response: Answer): void {
    const etag = response.headers.etag;
    if (typeof etag === "string") this.etags.set(path.toLowerCase(), etag);
    const match = /"nextLink":"[^"]*[?&]\$skipToken=([^"&]+)/.exec(response.body);
    if (match?.[1] && this.skipTokens.length < 50) this.skipTokens.push(match[1]);
  }
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request and what came back (or how it failed), with what was really sent. */
export interface Exchange {
  request: FuzzRequest;
  sent: { target: string; headers: Record<string, string | string[]>; bodyBytes: number };
  answer?: Answer;
  failure?: string;
  /**
   * The host closed the connection while a body over its limit was still being sent, before its
   * answer reached this client: the early refusal RFC 9110 §15.5.14 allows after a 413 (the 413 may
   * be lost in the reset), not a fault. Only a body over the limit may end so (checks.ts).
   */
  closedEarly?: boolean;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function describeSent(exchange: Exchange): string {
  const { request, sent } = exchange;
  return describeRequest(
    request.method,
    sent.target,
    sent.headers,
    request.body?.description,
    request.intent.label,
  );
}

/** Sends one request; fills in remembered ETags and skip tokens first. */
export async function send(baseUrl: string, request: FuzzRequest, memory: Memory): Promise<Exchange> {
  if (request.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
  const headers = { ...request.headers };
  let target = request.target;
  const path = target.split("?")[0] ?? target;
  const etag = memory.etags.get(path.toLowerCase());
  if (request.intent.knownEtag && etag !== undefined) headers[request.intent.knownEtag] = etag;
  const token = memory.skipTokens[target.length % Math.max(1, memory.skipTokens.length)];
  if (request.intent.knownSkipToken && token !== undefined) {
    target += `${target.includes("?") ? "&" : "?"}$skipToken=${token}`;
  }
  const body = request.body?.bytes();
  const sent = { target, headers, bodyBytes: body?.length ?? 0 };
  try {
    const answer = await exchangeOnce(baseUrl, request, sent, body);
    memory.remember(path, answer);
    return { request, sent, answer };
  } catch (error) {
    const failure = (error as Error).message;
    const early = body !== undefined && body.length > MAX_BODY_BYTES && /^(EPIPE|ECONNRESET):/.test(failure);
    return { request, sent, failure, ...(early && { closedEarly: true }) };
  }
}

function exchangeOnce(
  baseUrl: string,
  request: FuzzRequest,
  sent: Exchange["sent"],
  body: Buffer | undefined,
  retried = false,
): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise<Answer>((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { ...sent.headers };
    // Node chunks a GET or DELETE body only when told to; without it the bytes would read as a new request.
    if (body !== undefined) {
      if (request.body?.streamed) headers["transfer-encoding"] = "chunked";
      else headers["content-length"] = body.length;
    }
    const outgoing = http.request({
      host: url.hostname,
      port: url.port,
      method: request.method,
      path: sent.target,
      headers,
      // A retry goes on a new connection: the pool may hold other kept-alive sockets the server is
      // closing at the same moment (they idle out together), and a second reset would fail the case.
      agent: retried ? false : agent,
      timeout: 60_000,
    });
    let answered = false;
    outgoing.on("response", (incoming) => {
      answered = true;
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", reject);
      incoming.on("end", () =>
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error("no answer within 60 s")));
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      if (answered) return; // the server answered early (413) and closed while the body was still going
      // A kept-alive socket the server closed meanwhile: try once more on a fresh one.
      if (outgoing.reusedSocket && !retried && error.code === "ECONNRESET") {
        exchangeOnce(baseUrl, request, sent, body, true).then(resolve, reject);
      } else reject(new Error(`${error.code ?? "error"}: ${error.message}`));
    });
    if (body === undefined) outgoing.end();
    else if (!request.body?.streamed) outgoing.end(body);
    else {
      for (let offset = 0; offset < body.length; offset += 64 * 1024) {
        outgoing.write(body.subarray(offset, offset + 64 * 1024));
      }
      outgoing.end();
    }
  });
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the order of results. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}

export function closeConnections(): void {
  agent.destroy();
}
