import fc from "fast-check";
import {
  deadLetterBlobName,
  decodeEventId,
  encodeEventId,
  eventIdOfBlobName,
  MAX_BLOB_NAME_LENGTH,
  MAX_NAMES_PER_ID,
} from "../../src/delivery/dead-letter-name";

const AT = new Date("2026-03-04T05:59:59.999Z");
const FOLDER = "orders/2026/03/04/05/";

/** Short strings of the characters that separate, escape or get replaced: random pairs often nearly agree. */
const trickyId = fc.string({
  unit: fc.constantFrom("/", "\\", "_", ".", "~", "%", "2", "F", "a", "A", "é", "😀", "\ud800", "\udc00"),
  maxLength: 6,
});

/** Any UTF-16 string, lone surrogates included, short or long enough to need the hashed form. */
const anyId: fc.Arbitrary<string> = fc.oneof(
  trickyId,
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({
    unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    maxLength: 20,
  }),
  fc.constantFrom(
    "",
    ".",
    "..",
    "%",
    "%25",
    "~",
    "a.1",
    "a~b",
    "col/1",
    "col_1",
    "col\\1",
    "../x",
    "😀",
    "\ud800",
  ),
  fc
    .tuple(fc.constantFrom("a", "/", "é", "😀", "\ud800"), fc.integer({ min: 100, max: 1_500 }), fc.string())
    .map(([unit, times, tail]) => unit.repeat(times) + tail),
);
const endpointName = fc.stringMatching(/^[a-z][a-z0-9-]{1,48}[a-z0-9]$/);
const hour = fc.date({
  min: new Date("2000-01-01T00:00:00Z"),
  max: new Date("2099-12-31T23:59:59Z"),
  noInvalidDate: true,
});
const copy = fc.integer({ min: 0, max: MAX_NAMES_PER_ID - 1 });

describe("dead-letter blob names", () => {
  it("are {endpoint}/{yyyy}/{MM}/{dd}/{HH}/{eventId}.json in UTC, zero-padded", () => {
    expect(deadLetterBlobName("orders", "evt-1", AT)).toBe(`${FOLDER}evt-1.json`);
  });

  it("give ids that differ only in separators names of their own", () => {
    const names = ["col/1", "col_1", "col\\1", "col.1", "col~1", "col%2F1"].map((id) =>
      deadLetterBlobName("orders", id, AT),
    );
    expect(new Set(names).size).toBe(names.length);
    expect(names.slice(0, 3)).toEqual([
      `${FOLDER}col%2F1.json`,
      `${FOLDER}col_1.json`,
      `${FOLDER}col%5C1.json`,
    ]);
  });

  it("keep '.', '..' and traversal attempts inside the hour's folder", () => {
    expect(deadLetterBlobName("orders", "..", AT)).toBe(`${FOLDER}%2E%2E.json`);
    expect(deadLetterBlobName("orders", ".", AT)).toBe(`${FOLDER}%2E.json`);
    expect(deadLetterBlobName("orders", "../../other/x", AT)).toBe(
      `${FOLDER}%2E%2E%2F%2E%2E%2Fother%2Fx.json`,
    );
  });

  it("name later events with a taken id {eventId}.{n}.json, apart from any other id's names", () => {
    expect(deadLetterBlobName("orders", "a", AT, 1)).toBe(`${FOLDER}a.1.json`);
    // The id "a.1" cannot take the second name of "a": its dot is encoded.
    expect(deadLetterBlobName("orders", "a.1", AT)).toBe(`${FOLDER}a%2E1.json`);
    expect(() => deadLetterBlobName("orders", "a", AT, MAX_NAMES_PER_ID)).toThrow(RangeError);
  });

  it("stay within 1,024 characters for a very long id, distinct for ids sharing a long start", () => {
    const first = deadLetterBlobName("orders", `${"x".repeat(5_000)}1`, AT);
    const second = deadLetterBlobName("orders", `${"x".repeat(5_000)}2`, AT);
    expect(first).not.toBe(second);
    expect(first.length).toBeLessThanOrEqual(MAX_BLOB_NAME_LENGTH);
    expect(first).toMatch(new RegExp(`^${FOLDER}x{900,}~[0-9a-f]{64}\\.json$`));
    expect(eventIdOfBlobName(first)).toBeUndefined();
  });

  it("never cut a long id's start inside an encoded character", () => {
    const name = deadLetterBlobName("orders", "é".repeat(1_000), AT);
    const start = name.slice(FOLDER.length, name.indexOf("~"));
    expect(start).toMatch(/^(?:%C3%A9)+$/);
  });

  it("property: distinct (id, copy) pairs get distinct names", () => {
    fc.assert(
      fc.property(anyId, anyId, copy, copy, (a, b, copyA, copyB) => {
        fc.pre(a !== b || copyA !== copyB);
        expect(deadLetterBlobName("orders", a, AT, copyA)).not.toBe(
          deadLetterBlobName("orders", b, AT, copyB),
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it("property: a name starts with {endpoint}/, adds no folder, fits 1,024 characters and gives its id back", () => {
    fc.assert(
      fc.property(endpointName, anyId, hour, copy, (endpoint, id, at, n) => {
        const name = deadLetterBlobName(endpoint, id, at, n);
        expect(name.startsWith(`${endpoint}/`)).toBe(true);
        expect(name.split("/")).toHaveLength(6);
        expect(name.length).toBeLessThanOrEqual(MAX_BLOB_NAME_LENGTH);
        expect(name).toMatch(/^[A-Za-z0-9/_%~.-]+$/);
        const fromName = eventIdOfBlobName(name);
        if (fromName !== undefined) expect(fromName).toBe(id);
        else expect(name).toMatch(/~[0-9a-f]{64}(\.[0-9]+)?\.json$/);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe("event id encoding", () => {
  it("property: decode(encode(id)) is id, for any UTF-16 string", () => {
    fc.assert(
      fc.property(anyId, (id) => {
        expect(decodeEventId(encodeEventId(id))).toBe(id);
      }),
      { numRuns: 2_000 },
    );
  });

  it("encodes UTF-8 bytes in uppercase hex, '%' itself, and a lone surrogate as %uXXXX", () => {
    expect(encodeEventId("é%😀")).toBe("%C3%A9%25%F0%9F%98%80");
    expect(encodeEventId("a\ud800b")).toBe("a%uD800b");
  });

  it("refuses anything but the one encoding of an id", () => {
    expect(() => decodeEventId("%41")).toThrow();
    expect(() => decodeEventId("%c3%a9")).toThrow();
    expect(() => decodeEventId("a.b")).toThrow();
    expect(() => decodeEventId("%ZZ")).toThrow();
  });
});
