import fc from "fast-check";
import { Payload, RawJson } from "./wire";

/** Hostile values for every part of a request: strings, path segments, bodies, headers, query. */

export const MIB = 1024 * 1024;

/** Strings a parser, a store or a log line may choke on. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "\udfff\ud800",
    "😀👩‍👩‍👧‍👦🏳️‍🌈",
    "\u202eevil\u202c",
    "مرحبا بالعالم",
    "\u200b\ufeff",
    "İıſK",
    "ﬁ",
    "..",
    "../../etc/passwd",
    "..\\..\\windows",
    "%2e%2e%2f",
    "%00",
    "%ZZ",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally
    "${jndi:ldap://x}",
    "{{7*7}}",
    "%s%n%x",
    "' OR 1=1 --",
    '"; SELECT * FROM c --',
    "__proto__",
    "constructor",
    "null",
    "true",
    "-1",
    "1e400",
    "NaN",
    "<script>alert(1)</script>",
    "***",
    "\r\n\t",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc
    .tuple(fc.constantFrom("a", "é", "😀", "\u0000", "-"), fc.integer({ min: 64, max: 20_000 }))
    .map(([unit, times]) => unit.repeat(times)),
);

/** Percent-encodes a string as one path segment; lone surrogates as their (invalid) UTF-8-like bytes. */
export function encodeSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return Array.from(text, (char) => {
      const code = char.codePointAt(0) ?? 0;
      if (code < 0xd800 || code > 0xdfff) return encodeURIComponent(char);
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join("");
    }).join("");
  }
}

/** Raw path segments as they go on the wire: traversal, encoded slashes, bad escapes, long ones. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "..",
    ".",
    "%2e%2e",
    "%2E",
    "..%2F..%2Fetc",
    "..%2f..%2f..%2fetc%2fpasswd",
    "%2F",
    "a%2Fb",
    "a%5Cb",
    "a\\b",
    "..\\..",
    "%5C..%5C",
    "%00",
    "%",
    "%zz",
    "%C0%AE%C0%AE",
    "%ED%A0%80",
    "%FF",
    "a;b=c",
    "*",
    "~",
    "%20",
    "a%0Ab",
    "%E2%80%AE",
    "x".repeat(3000),
  ),
  hostileString.map(encodeSegment).filter((wire) => wire.length <= 3000),
  fc.integer({ min: 64, max: 4000 }).map((length) => "n".repeat(length)),
);

const deepArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const deepObjects = (depth: number) => `${'{"a":'.repeat(depth)}{}${"}".repeat(depth)}`;

/** A JSON document, as text, built to hurt recursive code: deep nesting, many keys, long strings. */
export const hostileJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(10, 1_000, 10_000, 100_000).map((depth) => deepArrays(depth)),
  fc.constantFrom(10, 1_000, 10_000, 50_000).map((depth) => deepObjects(depth)),
  fc
    .integer({ min: 1, max: 20_000 })
    .map((count) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, index]))),
    ),
  fc.constantFrom(
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"a":1,"a":2}',
  ),
);

/** Replaces the field's value (a string field) with deep JSON text, or puts deep JSON in its place. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileJsonText,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -0, [], {}, [null], { a: null }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1_000, 10_000, 100_000).map((depth) => new RawJson(deepArrays(depth))),
  fc.constantFrom(1_000, 10_000, 50_000).map((depth) => new RawJson(deepObjects(depth))),
);

/** Whole bodies that are not what any route wants: not JSON, not UTF-8, deep, huge, or empty. */
export const hostileBody: fc.Arbitrary<Payload> = fc.oneof(
  fc
    .constantFrom(
      "",
      " ",
      "{",
      "}",
      "{oops",
      '{"a":}',
      "{'a':1}",
      '{"a":1,}',
      "[1,2",
      "nul",
      "NaN",
      "Infinity",
      "1e400",
      '"\\ud800"',
      '{"\\ud800":"\\udfff"}',
      '{"a":"\\u0000"}',
      "\ufeff{}",
      "null",
      "true",
      "0",
      '"text"',
      "[]",
      "[{}]",
      '{"a":1}garbage',
      "{}{}",
    )
    .map((text) => Payload.text(text)),
  hostileJsonText.map((text) => Payload.text(text)),
  fc.constant(Payload.bytes("invalid UTF-8", Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]))),
  fc.constant(Payload.bytes("UTF-16 with BOM", Buffer.from('\ufeff{"a":1}', "utf16le"))),
  hugeBody(),
);

/** Bodies around the 1 MiB limit (and far beyond), streamed without a length now and then. */
export function hugeBody(field = "authenticationProfileContent"): fc.Arbitrary<Payload> {
  return fc
    .tuple(
      fc.constantFrom(MIB - 64, MIB, MIB + 1, 2 * MIB, 5 * MIB),
      fc.constantFrom("x", "é", "\\u0000"),
      fc.boolean(),
    )
    .map(([size, unit, chunked]) => {
      const prefix = `{"${field}":"`;
      const suffix = '"}';
      const body = Payload.lazy(`${size} bytes of JSON {"${field}":"${unit}…"}`, () => {
        const room = Math.max(0, size - prefix.length - suffix.length);
        const text = unit.repeat(Math.ceil(room / Buffer.byteLength(unit)));
        return Buffer.from(prefix + text + suffix).subarray(0, size);
      });
      return chunked ? body.chunked() : body;
    });
}

/** Header values (visible ASCII and Latin-1 only: what Node lets a client send). */
const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc.constantFrom(..."\t !\"#$%&'()*+,-./0123456789:;<=>?@[\\]^_`{|}~AZaz\u00e9\u00ff"),
    maxLength: 64,
  }),
  fc.integer({ min: 1_000, max: 4_000 }).map((length) => "h".repeat(length)),
);

export const hostileContentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  "",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "APPLICATION/JSON",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "application/json;;;",
  'application/json; boundary="',
  "application/json, text/plain",
  "application/jsonp",
  "application/x+json",
  "application/merge-patch+json",
  "application/cloudevents+json; charset=utf-8",
  "application/cloudevents-batch+json",
  "*/*",
  "json",
  " application/json ",
);

/** If-Match / If-None-Match values that match nothing, or that are not entity tags at all. */
export const hostileEtag: fc.Arbitrary<string | string[]> = fc.oneof(
  fc.constantFrom("*", '"nope"', 'W/"nope"', "nope", '""', '"', ",", ", ,", '"a", *', "*, *", "W/", "**"),
  headerText,
  fc.tuple(fc.constantFrom("*", '"nope"'), fc.constantFrom('"other"', "*")).map((pair) => [...pair]),
);

/** Extra headers: huge values, lookalikes of the key header, odd encodings. */
export const hostileHeaders: fc.Arbitrary<Record<string, string | string[]>> = fc.oneof(
  fc.record({ "x-ms-correlation-request-id": headerText }),
  fc.record({ "x-fuzz-padding": fc.integer({ min: 1_000, max: 6_000 }).map((n) => "p".repeat(n)) }),
  fc.record({ accept: fc.constantFrom("text/html", "*/*", "application/xml", "", "application/json;q=0") }),
  fc.record({ "x-functions-key-extra": headerText, "x-forwarded-for": headerText }),
  fc.record({ "x-ms-client-request-id": headerText, "accept-language": headerText }),
  fc.record({ "content-encoding": fc.constantFrom("gzip", "br", "identity", "x") }),
);

/** api-version values that no resource type supports, or that are not versions. */
export const hostileApiVersion: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "latest",
    "2026-11-01 ",
    " 2026-11-01",
    "2026-11-01,2026-11-01",
    "2026-13-45",
    "2023-09-09-PREVIEW",
    "2026-11-01%00",
    "%FF",
    "x".repeat(3000),
  ),
  hostileString.map(encodeSegment).filter((wire) => wire.length <= 2000),
);

export const hostileTop: fc.Arbitrary<string> = fc.constantFrom(
  "",
  "0",
  "-1",
  "1001",
  "1e3",
  "0x10",
  "%205",
  "5%20",
  "1.0",
  "9999999999",
  "00000001",
  "NaN",
  "%00",
  "1000",
  "1",
);

/** $skipToken values this service never issued: garbage, and base64url of JSON it may still parse. */
export const hostileSkipToken: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("", "%", "%00", "not-a-token", "====", "a".repeat(3000)),
  fc
    .constantFrom(
      "null",
      "1",
      "-1",
      "true",
      "{}",
      "[]",
      '"x"',
      "[null]",
      '[{"compositeToken":"x","range":{"min":"","max":"FF"}}]',
      '{"token":"-RID:~abc==#RT:1#TRC:10","range":{"min":"","max":"FF"}}',
      '{"offset":-5,"limit":-1}',
      '{"offset":1e400}',
      "[[[[[[[[[[]]]]]]]]]]",
    )
    .map((json) => Buffer.from(json).toString("base64url")),
  fc
    .jsonValue({ maxDepth: 3 })
    .map((value) => Buffer.from(JSON.stringify(value) ?? "null").toString("base64url")),
);

/** Host headers a front may get; the local host builds the request URL from it. */
export const hostileHost: fc.Arbitrary<string> = fc.constantFrom(
  "",
  "evil.example",
  "[::1",
  "a b",
  "%",
  "user@host:1",
  "127.0.0.1:99999",
  "h".repeat(2000),
);

/** Percent-encodes what Node will not put on the wire raw (outside visible ASCII); keeps raw '%' escapes. */
export function wireSafe(target: string): string {
  return target.replace(/[^\x21-\x7e]+/g, (run) => encodeSegment(run));
}
