import { characterCount, textPosition } from "../../src/common/text-position";

// Positions as a person counts them, which JSON bodies' and filters' 400s both report.
it("counts characters, not UTF-16 units, and every kind of line break once", () => {
  const text = "a😀b\r\nc\rd\ne";
  expect(textPosition(text, 0)).toEqual({ position: 1, line: 1, column: 1 });
  expect(textPosition(text, text.indexOf("b"))).toEqual({ position: 3, line: 1, column: 3 });
  expect(textPosition(text, text.indexOf("c"))).toEqual({ position: 6, line: 2, column: 1 });
  expect(textPosition(text, text.indexOf("d"))).toEqual({ position: 8, line: 3, column: 1 });
  expect(textPosition(text, text.indexOf("e"))).toEqual({ position: 10, line: 4, column: 1 });
  expect(characterCount(text)).toBe(10);
});

it("counts a lone surrogate, or the half of a pair before an index that splits it, as a character", () => {
  expect(characterCount("\ud83d")).toBe(1);
  expect(textPosition("😀x", 1)).toEqual({ position: 2, line: 1, column: 2 });
});
