import fc from "fast-check";
import { locateJsonSyntaxError } from "../../src/common/json-syntax";
import { parseStrictJson } from "../../src/common/strict-json";

function messageOf(text: string): string | undefined {
  return locateJsonSyntaxError(text)?.message;
}

describe("where a text stops being JSON", () => {
  it.each([
    ['{"a":}', "unexpected '}' at line 1, column 6 (expected a value)"],
    ['{\n  "a": 1,\n  "b": \n}', "unexpected '}' at line 4, column 1 (expected a value)"],
    ['{\r\n  "a": 1,\r\n  "b": }', "unexpected '}' at line 3, column 8 (expected a value)"],
    ["{a:1}", "unexpected letter at line 1, column 2 (expected a member name in double quotes or '}')"],
    ["{'a':1}", `unexpected "'" at line 1, column 2 (expected a member name in double quotes or '}')`],
    ["[1,2,]", "unexpected ']' at line 1, column 6 (expected a value; JSON allows no comma before it)"],
    [
      '{"a":1,}',
      "unexpected '}' at line 1, column 8 (expected a member name in double quotes; JSON allows no comma before it)",
    ],
    ['{"a" 1}', "unexpected digit at line 1, column 6 (expected ':' after the member name)"],
    ['{"a":1 "b":2}', `unexpected '"' at line 1, column 8 (expected ',' or '}')`],
    ['{"a":[1,2}', "unexpected '}' at line 1, column 10 (expected ',' or ']')"],
    ['"abc', `unexpected end of the text at line 1, column 5 (expected '"' to close the string)`],
    ["[[[", "unexpected end of the text at line 1, column 4 (expected a value or ']')"],
    ["", "unexpected end of the text at line 1, column 1 (expected a value)"],
    ['{"a":1}x', "unexpected letter at line 1, column 8 (expected nothing after the JSON value)"],
    ["1 2", "unexpected digit at line 1, column 3 (expected nothing after the JSON value)"],
    [
      "01",
      "unexpected digit at line 1, column 2 (expected '.', 'e' or the end of the number; a JSON number has no leading zeros)",
    ],
    ["-x", "unexpected letter at line 1, column 2 (expected a digit after '-')"],
    ["1.", "unexpected end of the text at line 1, column 3 (expected a digit after the decimal point)"],
    ["1e+", "unexpected end of the text at line 1, column 4 (expected a digit in the exponent)"],
    ["nul}", "unexpected '}' at line 1, column 4 (expected the rest of 'null')"],
    [
      '"a\nb"',
      "unexpected control character U+000A in a string at line 1, column 3 (expected it escaped, as \\n, \\t or \\u0000 and the like)",
    ],
    [
      '"a\\qb"',
      'unexpected escape sequence in a string at line 1, column 3 (expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u followed by four hexadecimal digits)',
    ],
    [
      '"\\u12G4"',
      "unexpected letter in a \\u escape at line 1, column 6 (expected four hexadecimal digits after \\u)",
    ],
    ["\uFEFF{}", "unexpected byte order mark (U+FEFF) at line 1, column 1 (expected a value)"],
    ["\u00a0{}", "unexpected invisible character U+00A0 at line 1, column 1 (expected a value)"],
    // A character outside the BMP (two UTF-16 units) is one column.
    ['{"x":"😀", y}', "unexpected letter at line 1, column 11 (expected a member name in double quotes)"],
  ])("%j: %s", (text, message) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(messageOf(text)).toBe(message);
  });

  it("names what it found by kind, never quoting a letter or digit of the text", () => {
    for (const text of ['{"password":hunter2}', '{"key": s3cr3t}', '{"pin": 0123}', '{"k":"ok","x": Zé}']) {
      const message = messageOf(text) as string;
      expect(message).toMatch(/^unexpected (?:letter|digit) at line 1, column \d+/);
      expect(message).not.toMatch(/hunter|s3cr|123|Zé/);
    }
  });

  it("scans any depth without recursion", () => {
    expect(messageOf("[".repeat(500_000))).toBe(
      "unexpected end of the text at line 1, column 500001 (expected a value or ']')",
    );
  });

  it("is what parseStrictJson refuses with, line and column apart", () => {
    expect(parseStrictJson('{\n  "a": }')).toEqual({
      ok: false,
      refusal: {
        reason: "syntax",
        message: "unexpected '}' at line 2, column 8 (expected a value)",
        line: 2,
        column: 8,
      },
    });
  });
});

/** A JSON text with one character deleted, inserted or replaced: mostly not JSON, sometimes still. */
const damaged = fc
  .tuple(
    fc.json(),
    fc.nat(),
    fc.constantFrom("delete", "insert", "replace"),
    fc.constantFrom(..."{}[],:\"\\ \n0123456789-+.eEtrufalsn'x\u0000\u00a0\ufeff"),
  )
  .map(([text, at, how, char]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    if (how === "delete") return text.slice(0, i) + text.slice(i + 1);
    if (how === "insert") return text.slice(0, i) + char + text.slice(i);
    return text.slice(0, i) + char + text.slice(i + 1);
  });

describe("where a text stops being JSON (properties)", () => {
  it("finds a fault exactly when JSON.parse refuses the text", () => {
    fc.assert(
      fc.property(fc.oneof(damaged, fc.json(), fc.string()), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        const located = locateJsonSyntaxError(text);
        expect(located === undefined).toBe(parses);
        if (located !== undefined) {
          expect(located.index).toBeLessThanOrEqual(text.length);
          // Line and column agree with the index: the lines before it, and the characters of its line.
          const before = text.slice(0, located.index).split(/\r\n|\r|\n/);
          expect(located.line).toBe(before.length);
          expect(located.column).toBe([...(before[before.length - 1] as string)].length + 1);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
