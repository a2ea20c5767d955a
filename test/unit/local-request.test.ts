import { inspect } from "node:util";
import fc from "fast-check";
import { requestAsReceived } from "../../dev/local-request";
import { readRequestHead } from "../../dev/unparsed-request";

describe("requestAsReceived", () => {
  it.each(["TRACE", "CONNECT", "TRACK", "get", "patch", "FOO"])("reports %s as received", (method) => {
    const request = requestAsReceived(method, { url: "http://127.0.0.1/x" });
    expect(request.method).toBe(method);
    expect(request.url).toBe("http://127.0.0.1/x");
  });

  it("drops the body of a GET or HEAD as @azure/functions would, without its warning", async () => {
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    const emitWarning = jest.spyOn(process, "emitWarning");
    try {
      for (const method of ["GET", "HEAD"]) {
        const request = requestAsReceived(method, { url: "http://127.0.0.1/x", body: { string: "{}" } });
        expect(request.method).toBe(method);
        expect(await request.text()).toBe("");
      }
      requestAsReceived("patch", { url: "http://127.0.0.1/x", body: { string: "{}" } });
      expect(warn).not.toHaveBeenCalled();
      expect(emitWarning).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      emitWarning.mockRestore();
    }
  });

  it("keeps the body of an ordinary request", async () => {
    const request = requestAsReceived("PUT", { url: "http://127.0.0.1/x", body: { string: "{}" } });
    expect(await request.text()).toBe("{}");
  });
});

/** What a Headers does with a call: its result, or the error it throws (by message). */
function outcome(call: () => unknown): unknown {
  try {
    return { value: call() };
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

const NAMES = ["host", "x-a", "X-A", "content-type", "__proto__", "constructor", "to string", "é", "x\u0100"];
const VALUES = ["", "1", " padded ", "a\tb", "a\u0001b", "a\u00ffb", "a\u0100b", "a\r\nb", "1, 2", "\t"];

describe("the request's headers", () => {
  it("answer every read, iteration and change exactly as a Headers of the same record", () => {
    const record = fc
      .array(fc.tuple(fc.constantFrom(...NAMES, "x-b", "accept"), fc.constantFrom(...VALUES)), {
        maxLength: 5,
      })
      .map((pairs) => Object.fromEntries(pairs) as Record<string, string>);
    const asked = fc.array(fc.constantFrom(...NAMES, "x-b", "ACCEPT", "missing", ""), { maxLength: 6 });
    fc.assert(
      fc.property(
        record,
        asked,
        fc.constantFrom("set", "append", "delete", "none"),
        (headers, names, change) => {
          const expected = outcome(() => new Headers(headers));
          const actual = outcome(
            () => requestAsReceived("GET", { url: "http://127.0.0.1/x", headers }).headers,
          );
          if ("threw" in (expected as object)) {
            expect(actual).toEqual(expected);
            return;
          }
          const real = (expected as { value: Headers }).value;
          const received = (actual as { value: Headers }).value;
          for (const name of names) {
            expect(outcome(() => received.get(name))).toEqual(outcome(() => real.get(name)));
            expect(outcome(() => received.has(name))).toEqual(outcome(() => real.has(name)));
          }
          if (change !== "none") {
            const name = names[0] ?? "x-c";
            const apply = (target: Headers) =>
              outcome(() => (change === "delete" ? target.delete(name) : target[change](name, "v")));
            expect(apply(received)).toEqual(apply(real));
          }
          expect([...received]).toEqual([...real]);
          expect(received.get("x-a")).toEqual(real.get("x-a"));
          expect(inspect(received)).toEqual(inspect(real));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("are a Headers, and carry over to a Fetch Request", () => {
    const request = requestAsReceived("PUT", {
      url: "http://127.0.0.1/x",
      headers: { "content-type": "application/json", "x-a": "1" },
      body: { string: "{}" },
    });
    expect(request.headers).toBeInstanceOf(Headers);
    expect(Object.prototype.toString.call(request.headers)).toBe("[object Headers]");
    expect([...new Headers(request.headers)]).toEqual([
      ["content-type", "application/json"],
      ["x-a", "1"],
    ]);
    expect(new Request("http://127.0.0.1/", { headers: request.headers }).headers.get("X-A")).toBe("1");
  });
});

describe("readRequestHead", () => {
  it("reads the method, target and headers Node's parser refused", () => {
    const packet = Buffer.from(
      "get /a?b=1 HTTP/1.1\r\nHost: x\r\nX-Ms-Correlation-Request-Id:  c-1 \r\nA: 1\r\na: 2\r\n\r\n",
    );
    expect(readRequestHead(packet, 0)).toEqual({
      method: "get",
      target: "/a?b=1",
      headers: { host: "x", "x-ms-correlation-request-id": "c-1", a: "1, 2" },
    });
  });

  it("finds the refused request after an earlier one of a pipelined packet", () => {
    const first = "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n";
    const packet = Buffer.from(`${first}FOO /b HTTP/1.1\r\nHost: y\r\n\r\n`);
    expect(readRequestHead(packet, first.length + 1)).toMatchObject({ method: "FOO", target: "/b" });
  });

  it.each(["\u0000\u0001garbage", "FOO /a HTTP/2.0\r\n\r\n", "FOO\r\n\r\n", "FO O /a HTTP/1.1\r\n\r\n"])(
    "gives up on %j",
    (text) => {
      expect(readRequestHead(Buffer.from(text), 0)).toBeUndefined();
    },
  );
});

describe("requestAsReceived's lazily made Fetch Request", () => {
  const url = "http://127.0.0.1/x?a=1";

  it("answers headers, query and body bytes as a Fetch Request would", async () => {
    const bytes = Buffer.from('{"a":1}');
    const request = requestAsReceived("PUT", {
      url,
      headers: { "content-type": "application/json", "x-ms-correlation-request-id": "c-1" },
      query: { a: "1" },
      params: { name: "x" },
      body: { bytes },
    });
    expect(request.headers.get("Content-Type")).toBe("application/json");
    expect(request.query.get("a")).toBe("1");
    expect(request.params).toEqual({ name: "x" });
    expect(request.bodyUsed).toBe(false);
    expect(Buffer.from(await request.arrayBuffer()).toString()).toBe('{"a":1}');
    expect(request.bodyUsed).toBe(true);
    await expect(request.text()).rejects.toThrow(TypeError);
  });

  it("decodes text as Fetch does (UTF-8, byte order mark dropped) and parses json", async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"é":1}')]);
    expect(await requestAsReceived("POST", { url, body: { bytes: bom } }).text()).toBe('{"é":1}');
    expect(await requestAsReceived("POST", { url, body: { bytes: bom } }).json()).toEqual({ é: 1 });
  });

  it("gives a string body Fetch's text/plain content type when none is named", () => {
    const request = requestAsReceived("POST", { url, body: { string: "hi" } });
    expect(request.headers.get("content-type")).toBe("text/plain;charset=UTF-8");
  });

  it("builds the real Request for the body stream and for clone", async () => {
    const request = requestAsReceived("PUT", { url, headers: { a: "b" }, body: { string: "{}" } });
    const clone = request.clone();
    expect(clone.headers.get("a")).toBe("b");
    expect(await clone.text()).toBe("{}");
    expect(request.body).not.toBeNull();
    expect(await request.text()).toBe("{}");
    expect(request.bodyUsed).toBe(true);
  });
});
