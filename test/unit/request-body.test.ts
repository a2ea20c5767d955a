import { HttpRequest } from "@azure/functions";
import { InvalidRequestContent, PayloadTooLarge, UnsupportedMediaType } from "../../src/common/errors";
import { MAX_JSON_DEPTH } from "../../src/common/json-depth";
import {
  JSON_ONLY,
  MAX_BODY_BYTES,
  PATCH_MEDIA_TYPES,
  readJsonBody as readBody,
  readJsonObjectBody as readObjectBody,
} from "../../src/http/request-body";

const readJsonBody = (request: HttpRequest) => readBody(request, JSON_ONLY);
const readJsonObjectBody = (request: HttpRequest) => readObjectBody(request, JSON_ONLY);

// In Azure no local host sits in front of the handler: the handler's own checks must hold.
function request(
  body: string,
  headers: Record<string, string> = { "content-type": "application/json" },
): HttpRequest {
  return new HttpRequest({ method: "PUT", url: "http://localhost/x", body: { string: body }, headers });
}

describe("readJsonObjectBody", () => {
  it("returns the parsed object", async () => {
    await expect(readJsonObjectBody(request('{"a":1}'))).resolves.toEqual({ a: 1 });
  });

  it("refuses a body over 1 MiB even when its declared length is small", async () => {
    const big = JSON.stringify({ a: "x".repeat(MAX_BODY_BYTES) });
    await expect(
      readJsonObjectBody(request(big, { "content-type": "application/json", "content-length": "10" })),
    ).rejects.toBeInstanceOf(PayloadTooLarge);
  });

  it("accepts a body of exactly 1 MiB", async () => {
    const exact = JSON.stringify({ a: "x".repeat(MAX_BODY_BYTES - 8) });
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY_BYTES);
    await expect(readJsonObjectBody(request(exact))).resolves.toBeDefined();
  });

  it("refuses a non-JSON content type and a missing one", async () => {
    await expect(readJsonObjectBody(request("{}", { "content-type": "text/plain" }))).rejects.toBeInstanceOf(
      UnsupportedMediaType,
    );
    await expect(readJsonObjectBody(request("{}", {}))).rejects.toBeInstanceOf(UnsupportedMediaType);
  });

  it("refuses JSON that is not an object", async () => {
    await expect(readJsonObjectBody(request("null"))).rejects.toBeInstanceOf(InvalidRequestContent);
  });
});

describe("deeply nested JSON", () => {
  it("is refused with a 400 instead of overflowing the stack", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    await expect(readJsonBody(request(deep))).rejects.toBeInstanceOf(InvalidRequestContent);
  });

  it("is accepted up to the limit", async () => {
    const atLimit = `${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`;
    await expect(readJsonBody(request(atLimit))).resolves.toBeDefined();
    const over = `${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}`;
    await expect(readJsonBody(request(over))).rejects.toBeInstanceOf(InvalidRequestContent);
  });
});

describe("duplicate member names (RFC 7493)", () => {
  async function refusal(body: string): Promise<InvalidRequestContent> {
    const error = await readJsonBody(request(body)).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InvalidRequestContent);
    return error as InvalidRequestContent;
  }

  it("refuses a body with a member twice, naming it by its JSON pointer", async () => {
    const error = await refusal('{"conn":{"Password":"hunter2"},"conn":1}');
    expect(error.target).toBe("/conn");
    expect(error.message).toContain("/conn");
    expect(error.message).not.toContain("hunter2");
  });

  it("sees through escapes: Pass\\u0077ord and Password are the same name", async () => {
    const error = await refusal('{"a":{"Password":"x","Pass\\u0077ord":"y"}}');
    expect(error.target).toBe("/a/Password");
  });

  it("finds duplicates in objects inside arrays", async () => {
    const error = await refusal('{"events":[{"id":"1"},{"id":"2","id":"3"}]}');
    expect(error.target).toBe("/events/1/id");
  });

  it("refuses __proto__ twice", async () => {
    expect((await refusal('{"__proto__":{},"__proto__":{"x":1}}')).target).toBe("/__proto__");
  });

  it("accepts the same name in sibling objects and names that differ by case", async () => {
    await expect(readJsonBody(request('[{"a":1},{"a":2}]'))).resolves.toEqual([{ a: 1 }, { a: 2 }]);
    await expect(readJsonBody(request('{"Password":1,"password":2}'))).resolves.toEqual({
      Password: 1,
      password: 2,
    });
  });
});

describe("a body that is not JSON", () => {
  it("is refused without quoting the body back", async () => {
    const error = await readJsonBody(request('{"key":s3cr3t}')).catch((thrown: unknown) => thrown as Error);
    expect(error).toBeInstanceOf(InvalidRequestContent);
    expect((error as Error).message).not.toContain("s3cr3t");
    expect((error as Error).message).toBe(
      "The request body is not valid JSON: unexpected letter at line 1, column 8 (expected a value).",
    );
  });

  it.each([
    ['{\n  "a": 1,\n  "b": \n}', "unexpected '}' at line 4, column 1 (expected a value)"],
    [
      '{"a": 1,}',
      "unexpected '}' at line 1, column 9 (expected a member name in double quotes; JSON allows no comma before it)",
    ],
    ['{"a": 1', "unexpected end of the text at line 1, column 8 (expected ',' or '}')"],
    ["\uFEFF{}", "unexpected byte order mark (U+FEFF) at line 1, column 1 (expected a value)"],
  ])("%j: says where, and what was expected there", async (body, where) => {
    const error = await readJsonBody(request(body)).catch((thrown: unknown) => thrown as Error);
    expect(error).toBeInstanceOf(InvalidRequestContent);
    expect((error as Error).message).toBe(`The request body is not valid JSON: ${where}.`);
  });
});

function bytesRequest(bytes: Buffer, contentType = "application/json"): HttpRequest {
  return new HttpRequest({
    method: "PUT",
    url: "http://localhost/x",
    body: { bytes },
    headers: { "content-type": contentType },
  });
}

describe("media types", () => {
  it.each([
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/vnd.x+json",
    "text/json",
  ])("refuses %s where only application/json is taken", async (type) => {
    await expect(readJsonBody(request("{}", { "content-type": type }))).rejects.toBeInstanceOf(
      UnsupportedMediaType,
    );
  });

  it.each([
    "application/json",
    "APPLICATION/JSON",
    "application/json; charset=utf-8",
    " application/json ;x=1",
  ])("takes %s", async (type) => {
    await expect(readJsonBody(request("{}", { "content-type": type }))).resolves.toEqual({});
  });

  it("takes a merge patch where PATCH media types are taken, but not a JSON Patch", async () => {
    const patch = (type: string) => readBody(request("{}", { "content-type": type }), PATCH_MEDIA_TYPES);
    await expect(patch("application/merge-patch+json")).resolves.toEqual({});
    await expect(patch("application/json")).resolves.toEqual({});
    await expect(patch("application/json-patch+json")).rejects.toBeInstanceOf(UnsupportedMediaType);
  });

  it("names the media types taken", async () => {
    const error = await readBody(request("{}", { "content-type": "text/plain" }), PATCH_MEDIA_TYPES).catch(
      (thrown: unknown) => thrown as UnsupportedMediaType,
    );
    expect(error).toMatchObject({ target: "Content-Type" });
    expect((error as Error).message).toContain("application/merge-patch+json");
  });
});

describe("bytes that are not UTF-8", () => {
  it.each([
    ["a lone continuation byte", [0x80]],
    ["a truncated sequence", [0xc3]],
    ["an overlong encoding of '/'", [0xc0, 0xaf]],
    ["an encoded surrogate", [0xed, 0xa0, 0x80]],
    ["a byte no UTF-8 holds", [0xff]],
  ])("refuses %s inside a string with 400, never replacing it with U+FFFD", async (_label, bad) => {
    const bytes = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from(bad), Buffer.from('y"}')]);
    const error = await readJsonBody(bytesRequest(bytes)).catch((thrown: unknown) => thrown as Error);
    expect(error).toBeInstanceOf(InvalidRequestContent);
    expect((error as Error).message).toMatch(/UTF-8/);
  });

  it("takes every valid UTF-8 sequence as it is", async () => {
    const text = '{"a":"é € 😀 \\u0000"}';
    await expect(readJsonBody(bytesRequest(Buffer.from(text, "utf8")))).resolves.toEqual({
      a: "é € 😀 \u0000",
    });
  });
});
