import type * as http from "node:http";
import fc from "fast-check";
import { requestUrl, serializedOrigin } from "../../dev/request-url";

const incoming = (url: string, host = "127.0.0.1:7071") =>
  ({ url, headers: { host } }) as unknown as http.IncomingMessage;

/** The fields the host reads, as `new URL` answers them for the same origin and target. */
function parsed(origin: string, target: string) {
  const url = new URL(`${origin}${target}`);
  return { href: url.href, pathname: url.pathname, search: url.search, query: [...url.searchParams] };
}

function read(origin: string, target: string) {
  const url = requestUrl(incoming(target), origin);
  if (url === undefined) return undefined;
  return { href: url.href, pathname: url.pathname, search: url.search, query: [...url.searchParams] };
}

// Every ASCII character but controls, and a few beyond: the plain path's set and everything around it.
const pathCharacter = fc.oneof(
  fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=:@%/\\?#[]^|`{}<>\" ".split("")),
  fc.constantFrom("%2e", "%2E", ".", "..", "é", "\u00a0", "%41", "%"),
);
const target = fc.array(pathCharacter, { maxLength: 12 }).map((parts) => `/${parts.join("")}`);

describe("requestUrl", () => {
  const origins = [
    "http://127.0.0.1:7071",
    "http://127.0.0.1:80",
    "http://[::1]:8080",
    "http://localhost:3000",
  ];

  it("answers every target word for word as new URL does, on every origin", () => {
    for (const given of origins) {
      const origin = serializedOrigin(given);
      fc.assert(
        fc.property(target, (path) => expect(read(origin, path)).toEqual(parsed(origin, path))),
        {
          numRuns: 2000,
        },
      );
    }
  });

  it("skips parsing only for plain paths, and answers them as new URL does", () => {
    const origin = serializedOrigin("http://127.0.0.1:7071");
    for (const path of ["/", "/authenticationProfiles/bench-1", "/a/b/", "/x(1)/y;z=1/@me:2"]) {
      const url = requestUrl(incoming(path), origin);
      expect(url).not.toBeInstanceOf(URL);
      expect(read(origin, path)).toEqual(parsed(origin, path));
    }
    for (const path of ["/a/../b", "/a/%2e/b", "/a//b", "/a\\b", "/a?code=1", "/a#f", "/a b", "/é", "/a.b"]) {
      expect(requestUrl(incoming(path), origin)).toBeInstanceOf(URL);
      expect(read(origin, path)).toEqual(parsed(origin, path));
    }
  });

  it("leaves out a default port and compresses an IPv6 address, as a URL's href does", () => {
    expect(serializedOrigin("http://127.0.0.1:80")).toBe("http://127.0.0.1");
    expect(serializedOrigin("http://[0:0::1]:7071")).toBe("http://[::1]:7071");
  });

  it("refuses a target that is not a path, and a Host header that is not a host", () => {
    const origin = serializedOrigin("http://127.0.0.1:7071");
    expect(requestUrl(incoming("*"), origin)).toBeUndefined();
    expect(requestUrl(incoming("http://other.example/a"), origin)).toBeUndefined();
    for (const host of ["a b", "user@host", "host/path", "host:99999x", ""]) {
      expect(requestUrl(incoming("/a", host), origin)).toBeUndefined();
    }
  });
});
