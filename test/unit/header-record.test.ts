import fc from "fast-check";
import { headerRecord, sortedByName } from "../../src/http/header-record";

describe("headerRecord", () => {
  it("lists headers as a Fetch Headers would", () => {
    const given = { ETag: ' "a" ', "Retry-After": "5", etag: '"b"' };
    const expected = Object.fromEntries(new Headers(given).entries());
    expect(sortedByName(headerRecord(given))).toEqual(expected);
    expect(Object.keys(sortedByName(headerRecord(given)))).toEqual(Object.keys(expected));
  });

  it("takes Headers and pairs too", () => {
    expect(headerRecord(new Headers({ A: "1" }))).toEqual({ a: "1" });
    expect(
      headerRecord([
        ["A", "1"],
        ["a", "2"],
      ]),
    ).toEqual({ a: "1, 2" });
    expect(headerRecord(undefined)).toEqual({});
  });

  it("lists a header named __proto__ as a header, not as the record's prototype", () => {
    const record = headerRecord([
      ["__proto__", "a"],
      ["__PROTO__", "b"],
    ]);
    expect(Object.keys(record)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(record, "__proto__")?.value).toBe("a, b");
    expect(Object.keys(sortedByName(record))).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(sortedByName(record), "__proto__")?.value).toBe("a, b");
  });

  it("refuses what Headers refuses", () => {
    expect(() => headerRecord({ "bad name": "x" })).toThrow(TypeError);
    expect(() => headerRecord({ a: "x\ny" })).toThrow(TypeError);
  });
});

describe("sortedByName", () => {
  it("orders any set of names as sort() and Headers do, keeping each value with its name", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.oneof(
            fc.stringMatching(/^[!#$%&'*+.^_`|~0-9a-z-]{1,12}$/),
            // Names an object treats specially when assigned, not defined.
            fc.constantFrom("__proto__", "constructor", "tostring", "hasownproperty"),
          ),
          { maxLength: 12 },
        ),
        (names) => {
          // fromEntries defines own properties, __proto__ too.
          const record = Object.fromEntries(names.map((name, index) => [name, `v${index}`]));
          const sorted = sortedByName(record);
          // Inserted in sort() order; an object still lists integer-like names ("0") first.
          const bySort = Object.fromEntries([...names].sort().map((name) => [name, record[name] as string]));
          expect(Object.keys(sorted)).toEqual(Object.keys(bySort));
          expect(sorted).toEqual(record);
          // A Headers made from a record leaves out an own __proto__ (one made from pairs keeps it).
          if (!names.some((name) => /^\d+$/.test(name) || name === "__proto__"))
            expect(Object.keys(sorted)).toEqual([...new Headers(record).keys()]);
        },
      ),
    );
  });
});
