import { isIPv4 } from "node:net";

/**
 * Whether a URL's host is this machine's loopback interface: `localhost`, 127.0.0.0/8 or `[::1]`.
 * The WHATWG URL parser has already normalised the host (lower case, `127.1` and `0x7f.0.0.1` to
 * `127.0.0.1`, `[0:0::1]` to `[::1]`), so only canonical forms are left to compare; a name that
 * merely starts with them (`127.0.0.1.example.com`, `localhost.example.com`) is not loopback.
 */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname;
  if (host === "localhost" || host === "[::1]") return true;
  return isIPv4(host) && host.split(".")[0] === "127";
}
