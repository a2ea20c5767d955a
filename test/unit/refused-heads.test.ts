import fc from "fast-check";
import { pathProblem } from "../../dev/local-host";
import { readRefusedHead } from "../../dev/unparsed-request";

describe("readRefusedHead", () => {
  const packet = (text: string) => Buffer.from(text, "latin1");
  /** Where Node's parser reports the failure: the failing line, as bytesParsed points into it. */
  const at = (text: string, marker: string) => text.indexOf(marker) + 3;

  it("finds the request line above a failing header, keeps the good headers and names the bad one", () => {
    const text =
      "GET /a?x=1 HTTP/1.1\r\nHost: h\r\nx-ms-correlation-request-id: c-1\r\nX-Bad: a\u0001b\r\nAccept: */*\r\n\r\n";
    expect(readRefusedHead(packet(text), at(text, "X-Bad"))).toEqual({
      head: {
        method: "GET",
        target: "/a?x=1",
        headers: { host: "h", "x-ms-correlation-request-id": "c-1", accept: "*/*" },
      },
      header: "X-Bad",
    });
  });

  it("takes the request of a pipelined packet that failed, not the one before it", () => {
    const text =
      "GET /first HTTP/1.1\r\nHost: h\r\n\r\nPUT /second HTTP/1.1\r\nHost: h\r\nX-Bad: \u0000\r\n\r\n";
    expect(readRefusedHead(packet(text), at(text, "X-Bad")).head).toMatchObject({
      method: "PUT",
      target: "/second",
    });
  });

  it("names no header when the failing name is not a token, and never keeps a value", () => {
    const text = "GET / HTTP/1.1\r\nX Bad: secret\r\n\r\n";
    const refused = readRefusedHead(packet(text), at(text, "X Bad"));
    expect(refused.header).toBeUndefined();
    expect(JSON.stringify(refused)).not.toContain("secret");
  });

  it("reads nothing when the packet holds no request line", () => {
    expect(readRefusedHead(packet("X-Bad: \u0001\r\n\r\n"), 3)).toEqual({ header: "X-Bad" });
  });
});

describe("pathProblem", () => {
  it.each([
    "/a//b",
    "//a",
    "/a/./b",
    "/a/../b",
    "/a/%2e%2e/b",
    "/a/%2E%2E",
    "/a/.%2e",
    "/a/%2e",
    "/a\\b",
    "/a/..?x=1",
  ])("refuses %s", (target) => {
    expect(pathProblem(target)).toEqual(expect.any(String));
  });

  it("answers as the full scan does, for any path, also with a problem only in its query", () => {
    // The scan without the quick check for suspect characters, as it was before that check.
    const fullScan = (target: string) => {
      const path = target.split(/[?#]/, 1)[0] ?? "";
      const segments = path.split("/").slice(1);
      if (path.includes("\\")) return "backslash";
      if (segments.slice(0, -1).includes("")) return "empty";
      if (segments.some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) return "dot";
      return undefined;
    };
    const pieces = ["/", ".", "..", "%2e", "%2E", "a", "\\", "?", "#", "%", "e", "//"];
    const target = fc
      .array(fc.constantFrom(...pieces), { maxLength: 10 })
      .map((parts) => `/${parts.join("")}`);
    fc.assert(
      fc.property(target, (path) => {
        expect(pathProblem(path) === undefined).toBe(fullScan(path) === undefined);
      }),
      { numRuns: 5000 },
    );
  });

  it.each(["/", "/a", "/a/", "/a/...", "/a/.b", "/a/%2e%2e%2e", "/a?x=//..", "/a/b#../.."])(
    "takes %s",
    (target) => {
      expect(pathProblem(target)).toBeUndefined();
    },
  );
});
