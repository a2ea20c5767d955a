import { isIPv4 } from "node:net";

/**
 * Hosts of endpoint URLs, read so that this service and the SDKs that later connect agree on
 * which host is meant. Only the plain spelling is accepted: ASCII letters, digits, '-' and '.'
 * in DNS labels, or a bracketed IPv6 address, which WHATWG URL parsing leaves unchanged but for
 * case. Every other spelling (percent-encoding, Unicode look-alikes, trailing dots, IPv4 written
 * in decimal, hex, octal or short form, IPv6 written long) is one that parsers read differently,
 * so it is refused rather than normalised.
 */
export interface Authority {
  /** A lower-case host name, an IPv4 dotted quad, or a bracketed IPv6 address. */
  hostname: string;
  port?: number;
}

/**
 * `host[:port]` as this service reads it, ASCII only: what parseAuthority takes is a subset (DNS
 * labels, a real address, a port up to 65535). The API description's dead-letter URL pattern is
 * built from it, so the document never admits a host the server refuses for its characters.
 */
export const PLAIN_AUTHORITY_PATTERN = "([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(?::([1-9][0-9]{0,4}))?";
const PLAIN_AUTHORITY = new RegExp(`^${PLAIN_AUTHORITY_PATTERN}$`);

const LABEL_PATTERN = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const OCTET_PATTERN = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
const PORT_PATTERN =
  "(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])";

/**
 * For the API description: a host name some deployment admits (endpoint-allow-list.ts), no port,
 * as parseAuthority spells it. A name must end with one of the host suffixes, each two labels or
 * more after a '.', the last starting with a letter (config.ts): so a name has three labels or
 * more, the last starting with a letter, which no IP address in any spelling has. Not stated: the
 * 253 characters a name may have, and which suffixes (a deployment's settings).
 */
export const ADMITTED_HOST_NAME_PATTERN = `(?:${LABEL_PATTERN}\\.){2,}[A-Za-z][A-Za-z0-9-]{0,61}[A-Za-z0-9]`;

/**
 * For the API description: a loopback host (isLoopback: localhost in any letter case, 127.0.0.0/8
 * as a dotted quad, [::1]) and an optional port up to 65535, the one authority with a port the
 * server admits, and only where ALLOW_LOOPBACK_ENDPOINTS is set.
 */
export const LOOPBACK_AUTHORITY_PATTERN = `(?:[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]|127(?:\\.${OCTET_PATTERN}){3}|\\[::1\\])(?::${PORT_PATTERN})?`;
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_PORT = 65535;
const MAX_HOST_NAME_LENGTH = 253;

/** `host[:port]` in its plain spelling; undefined for any other spelling or a bad port. */
export function parseAuthority(authority: string): Authority | undefined {
  const match = PLAIN_AUTHORITY.exec(authority);
  const written = match?.[1]?.toLowerCase();
  if (written === undefined || written.length > MAX_HOST_NAME_LENGTH) return undefined;
  let hostname: string;
  try {
    // Special-scheme parsing is what normalises IP address spellings; an sb:// URL gets none.
    hostname = new URL(`https://${written}/`).hostname;
  } catch {
    return undefined;
  }
  if (hostname !== written) return undefined;
  const isName = !written.startsWith("[") && !isIPv4(written);
  if (isName && !written.split(".").every((label) => DNS_LABEL.test(label))) return undefined;
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > MAX_PORT) return undefined;
  return port === undefined ? { hostname } : { hostname, port };
}

/** For a host read by parseAuthority: a plain IPv4 address is a dotted quad, an IPv6 one is bracketed. */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || isIPv4(hostname);
}

/** 127.0.0.0/8, ::1 and localhost, in their plain spellings. */
export function isLoopback(hostname: string): boolean {
  return (
    hostname === "localhost" || hostname === "[::1]" || (isIPv4(hostname) && hostname.startsWith("127."))
  );
}

/** Ends with one of the suffixes (each starting with '.', so on a label boundary) and is a name. */
export function matchesSuffix(hostname: string, suffixes: readonly string[]): boolean {
  return (
    !isIpLiteral(hostname) &&
    suffixes.some((suffix) => hostname.length > suffix.length && hostname.endsWith(suffix))
  );
}
