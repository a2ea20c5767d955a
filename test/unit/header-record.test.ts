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
