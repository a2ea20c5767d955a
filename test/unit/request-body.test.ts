import { HttpRequest } from "@azure/functions";
import { MAX_BODY_BYTES, readJsonBody, readJsonObjectBody } from "../../src/http/request-body";
import { InvalidRequestContent, PayloadTooLarge, UnsupportedMediaType } from "../../src/shared/errors";
import { MAX_JSON_DEPTH } from "../../src/shared/json-depth";

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
