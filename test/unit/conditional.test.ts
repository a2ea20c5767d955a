import { HttpRequest } from "@azure/functions";
import { InvalidRequestContent } from "../../src/common/errors";
import { parseConditionalHeader, readPreconditions } from "../../src/http/conditional";
import { ENTITY_TAG_LIST_PATTERN } from "../../src/http/openapi";

// RFC 9110 §13.1.1 / §13.1.2: `*` or a list of entity tags; anything else is a 400 naming the header.
describe("parseConditionalHeader", () => {
  it.each([
    ["*", ["*"]],
    [" * ", ["*"]],
    ['"abc"', ['"abc"']],
    ['W/"abc"', ['W/"abc"']],
    ['""', ['""']],
    ['"a", W/"b"', ['"a"', 'W/"b"']],
    ['"a",W/"b" ,\t"c"', ['"a"', 'W/"b"', '"c"']],
    ['"a,b"', ['"a,b"']],
    ['"a,b", "c"', ['"a,b"', '"c"']],
    [', "a", , "b",', ['"a"', '"b"']],
    ['"!#~\u0080\u00ff"', ['"!#~\u0080\u00ff"']],
  ])("reads %j", (value, tags) => {
    expect(parseConditionalHeader("If-Match", value)).toEqual(tags);
    expect(new RegExp(ENTITY_TAG_LIST_PATTERN, "u").test(value.trim())).toBe(true);
  });

  it.each([
    "",
    " ",
    ",",
    ", ,",
    "abc",
    "W/",
    "W/abc",
    'w/"abc"',
    '"abc',
    'abc"',
    '"a"b"',
    '"a" "b"',
    '"a";"b"',
    '"a", *',
    "*, *",
    "**",
    '"a b"',
    '"a\tb"',
    '"a\u0001b"',
    '"a\u007fb"',
    '"\u0100"',
    '"😀"',
  ])("refuses %j with a 400 naming the header", (value) => {
    const thrown = (() => {
      try {
        parseConditionalHeader("If-None-Match", value);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(InvalidRequestContent);
    expect(thrown).toMatchObject({ target: "If-None-Match" });
    // The document's pattern says the same.
    expect(new RegExp(ENTITY_TAG_LIST_PATTERN, "u").test(value.trim())).toBe(false);
  });
});

describe("readPreconditions", () => {
  const request = (headers: Record<string, string>) =>
    new HttpRequest({ method: "GET", url: "http://localhost/x", headers });

  it("reads only the headers the route honours", () => {
    const malformed = request({ "if-match": "nope", "if-none-match": '"a"' });
    expect(readPreconditions(malformed, ["If-None-Match"])).toEqual({ ifNoneMatch: ['"a"'] });
    expect(() => readPreconditions(malformed)).toThrow(InvalidRequestContent);
  });

  it("leaves absent headers out", () => {
    expect(readPreconditions(request({}))).toEqual({});
  });
});
