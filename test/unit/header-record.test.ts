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

  it("refuses what Headers refuses", () => {
    expect(() => headerRecord({ "bad name": "x" })).toThrow(TypeError);
    expect(() => headerRecord({ a: "x\ny" })).toThrow(TypeError);
  });
});

describe("sortedByName", () => {
  it("orders any set of names as sort() and Headers do, keeping each value with its name", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[!#$%&'*+.^_`|~0-9a-z-]{1,12}$/), { maxLength: 12 }),
        (names) => {
          const record = Object.fromEntries(names.map((name, index) => [name, `v${index}`]));
          const sorted = sortedByName(record);
          // Inserted in sort() order; an object still lists integer-like names ("0") first.
          const bySort: Record<string, string> = {};
          for (const name of [...names].sort()) bySort[name] = record[name] as string;
          expect(Object.keys(sorted)).toEqual(Object.keys(bySort));
          expect(sorted).toEqual(record);
          if (!names.some((name) => /^\d+$/.test(name)))
            expect(Object.keys(sorted)).toEqual([...new Headers(record).keys()]);
        },
      ),
    );
  });
});
