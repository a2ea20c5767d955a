import fc from "fast-check";
import { nameKey, sameName } from "../../src/common/name-key";
import { documentId } from "../../src/store/document-id";

// Every normalisation that turns a name into a stored id, tried for collisions: two names ARM keeps
// apart must never share an id, and names ARM takes as one must.
describe("nameKey", () => {
  it("is the lower-cased name for ASCII names, as ids were always stored", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii" }), (name) => {
        expect(nameKey(name)).toBe(name.toLowerCase());
      }),
    );
  });

  it("matches names that differ only in case", () => {
    expect(sameName("Factory-Twins", "fACTORY-tWINS")).toBe(true);
    expect(sameName("Résumé", "RÉSUMÉ")).toBe(true);
    expect(sameName("ǅemal", "ǆemal")).toBe(true);
  });

  it.each([
    ["K", "\u212A"], // Kelvin sign: lower-cases to "k"
    ["\u03C9", "\u2126"], // ohm sign: lower-cases to "ω"
    ["ss", "ß"], // upper-cases to "SS"
    ["i\u0307", "\u0130"], // İ lower-cases to "i" + combining dot
    ["\u00C5", "\u212B"], // angstrom sign: lower-cases to "å"
  ])("keeps %j and %j apart, as ARM does, though one case mapping folds them", (a, b) => {
    expect(nameKey(a)).not.toBe(nameKey(b));
  });

  it("never merges names of different lengths, nor changes a name's length", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect([...nameKey(a)]).toHaveLength([...a].length);
        if (nameKey(a) === nameKey(b)) expect([...a]).toHaveLength([...b].length);
      }),
    );
  });

  it("gives a name and its upper- and lower-case forms one key wherever those map one to one", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (name) => {
        const oneToOne = [...name].every((char) => [...char.toUpperCase()].length === 1);
        if (oneToOne) expect(nameKey(name.toUpperCase())).toBe(nameKey(name));
      }),
    );
  });
});

describe("documentId", () => {
  it("keeps a key that fits, and hashes one that does not", () => {
    expect(documentId("assessment-1")).toBe("assessment-1");
    expect(documentId("x".repeat(256))).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(documentId(" padded ")).toMatch(/^sha256-/);
  });

  it("cannot be made to collide by naming a key after another key's hashed id", () => {
    const long = "a".repeat(300);
    const lookalike = documentId(long);
    expect(documentId(lookalike)).not.toBe(lookalike);
    expect(documentId(lookalike)).not.toBe(documentId(long));
  });

  it("maps distinct keys to distinct ids", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.string().map((key) => documentId(`${key}${"z".repeat(260)}`)),
        ),
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.string().map((key) => ` ${key}`),
        ),
        (a, b) => {
          if (a !== b) expect(documentId(a)).not.toBe(documentId(b));
        },
      ),
    );
  });
});
