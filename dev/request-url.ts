import type * as http from "node:http";

/** What the host reads of a request's URL: a WHATWG URL, or for a plain path the same fields. */
export type RequestUrl = Pick<URL, "href" | "pathname" | "search" | "searchParams">;

/** A host name or address with an optional port, nothing else (no credentials, no path). */
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/**
 * A path URL parsing leaves exactly as it is: non-empty segments of characters it neither
 * percent-encodes nor reads specially, an optional trailing slash. No dot (so no dot segment), no
 * `%` (so no `%2e` one), no backslash, no `?` or `#`: any such path goes through `new URL`.
 */
const PLAIN_PATH = /^(?:(?:\/[A-Za-z0-9_~!$&'()*+,;=:@-]+)+\/?|\/)$/;

/** A plain path's URL, as `new URL` would answer it, without parsing: no query, so no parameters. */
class PlainUrl implements RequestUrl {
  readonly search = "";
  constructor(
    readonly href: string,
    readonly pathname: string,
  ) {}

  get searchParams(): URLSearchParams {
    return new URLSearchParams();
  }
}

/** The origin as URL serializes it (a default port left out, an IPv6 address compressed): a URL's href starts with it. */
export function serializedOrigin(origin: string): string {
  return new URL(`${origin}/`).href.slice(0, -1);
}

/**
 * The request's URL: the origin-form target on the address the host listens on (`origin`, as
 * serializedOrigin gives it). Never on the Host header, which the caller chooses: handlers build
 * links from this URL. The Host header is still checked, as the Functions host (Kestrel) refuses
 * a malformed one. The target is appended, not resolved, so `//other.example/x` stays a path on
 * this host instead of naming another host. A plain path (most requests) needs no parsing: its URL
 * is the origin and the path, word for word what `new URL` would make of them.
 */
export function requestUrl(incoming: http.IncomingMessage, origin: string): RequestUrl | undefined {
  const target = incoming.url ?? "/";
  const host = incoming.headers.host ?? "127.0.0.1";
  if (!target.startsWith("/") || !HOST.test(host)) return undefined;
  if (PLAIN_PATH.test(target)) return new PlainUrl(`${origin}${target}`, target);
  try {
    return new URL(`${origin}${target}`);
  } catch {
    return undefined;
  }
}
