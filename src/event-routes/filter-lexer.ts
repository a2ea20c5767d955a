import { InvalidRequestContent } from "../common/errors";
import { textPosition } from "../common/text-position";

/**
 * The tokens of an event-route filter (src/event-routes/filter.ts), read one at a time as the
 * parser asks, so the first fault reported is the first in the text. Positions in messages are
 * 1-based and count characters (code points, so an emoji is one), with the line and column; a
 * message quotes at most 20 characters of the filter, however long the token it is about.
 */

export type TokenKind = "word" | "string" | "number" | "punctuation" | "operator" | "invalid" | "end";

export interface Token {
  readonly kind: TokenKind;
  /** UTF-16 indexes in the filter: [start, end). */
  readonly start: number;
  readonly end: number;
  /** The token as written (a string with its quotes and escapes). */
  readonly raw: string;
  /** A string's or a number's value. */
  readonly value?: string | number;
}

const EXCERPT_LENGTH = 20;
const WORD = /[\p{L}_$][\p{L}\p{N}_$]*/uy;
const DIGIT = /[0-9]/;
const ESCAPES = new Map([
  ["\\", "\\"],
  ["'", "'"],
  ['"', '"'],
  ["n", "\n"],
  ["t", "\t"],
]);
const ESCAPES_EXPECTED = "an escape sequence (\\\\, \\', \\\", \\n, \\t or \\u and four hexadecimal digits)";
const TWO_CHARACTER_OPERATORS = new Set(["!=", "<=", ">="]);

/** At most 20 characters of `text` (code points), cut with an ellipsis. */
export function excerpt(text: string): string {
  const characters = Array.from(text.slice(0, EXCERPT_LENGTH * 2 + 2));
  return characters.length <= EXCERPT_LENGTH ? characters.join("") : `${characters.slice(0, 19).join("")}…`;
}

/** The character at `index` as a message names it: quoted, or by code point when it is invisible. */
function describeCharacter(text: string, index: number): string {
  if (index >= text.length) return "the end of the filter";
  const codePoint = text.codePointAt(index) as number;
  const character = String.fromCodePoint(codePoint);
  if (/[\p{Cc}\p{Cf}\p{Cs}\p{Z}]/u.test(character)) {
    return `the character U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return `'${character}'`;
}

/** What a message says was found: the token, quoted and cut short. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case "end":
      return "the end of the filter";
    case "string":
      return `the string ${excerpt(token.raw)}`;
    case "number":
      return `the number ${excerpt(token.raw)}`;
    case "invalid":
      return describeCharacter(token.raw, 0);
    default:
      return `'${excerpt(token.raw)}'`;
  }
}

/** The 400 for a filter that is not valid at `index`. */
export function filterError(
  text: string,
  index: number,
  expected: string,
  found: string,
): InvalidRequestContent {
  const { position, line, column } = textPosition(text, index);
  return new InvalidRequestContent(
    `The filter is not valid at position ${position} (line ${line}, column ${column}): expected ${expected}, found ${found}.`,
    "filter",
  );
}

export class FilterLexer {
  private index = 0;

  constructor(readonly text: string) {}

  next(): Token {
    const { text } = this;
    while (this.index < text.length && " \t\r\n".includes(text[this.index] as string)) this.index++;
    const start = this.index;
    if (start >= text.length) return this.token("end", start, start);
    const character = text[start] as string;
    if (character === "'" || character === '"') return this.string(start, character);
    if (character === "-" || DIGIT.test(character)) return this.number(start);
    WORD.lastIndex = start;
    if (WORD.test(text)) return this.token("word", start, WORD.lastIndex);
    if (TWO_CHARACTER_OPERATORS.has(text.slice(start, start + 2)))
      return this.token("operator", start, start + 2);
    if ("=<>".includes(character)) return this.token("operator", start, start + 1);
    if ("(),.[]".includes(character)) return this.token("punctuation", start, start + 1);
    return this.token("invalid", start, start + ((text.codePointAt(start) as number) > 0xffff ? 2 : 1));
  }

  private token(kind: TokenKind, start: number, end: number, value?: string | number): Token {
    this.index = end;
    return { kind, start, end, raw: this.text.slice(start, end), value };
  }

  private fail(index: number, expected: string, found = describeCharacter(this.text, index)): never {
    throw filterError(this.text, index, expected, found);
  }

  /** A string in `quote`s; a backslash escapes the next character (ESCAPES) or begins \uXXXX. */
  private string(start: number, quote: string): Token {
    const { text } = this;
    let value = "";
    let chunk = start + 1;
    let i = chunk;
    while (i < text.length) {
      const character = text[i];
      if (character === quote) return this.token("string", start, i + 1, value + text.slice(chunk, i));
      if (character !== "\\") {
        i++;
        continue;
      }
      value += text.slice(chunk, i);
      const escaped = text[i + 1] ?? "";
      const simple = ESCAPES.get(escaped);
      if (simple !== undefined) {
        value += simple;
        i += 2;
      } else if (escaped === "u") {
        for (let digit = i + 2; digit < i + 6; digit++) {
          if (!/[0-9A-Fa-f]/.test(text[digit] ?? "")) this.fail(digit, "four hexadecimal digits after \\u");
        }
        value += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        this.fail(i + 1, `${ESCAPES_EXPECTED} after '\\'`);
      }
      chunk = i;
    }
    const opening = textPosition(text, start).position;
    return this.fail(text.length, `the closing ${quote} of the string that starts at position ${opening}`);
  }

  /** A number in JSON's syntax: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  private number(start: number): Token {
    const { text } = this;
    const isDigit = (at: number) => DIGIT.test(text[at] ?? "");
    let i = start;
    if (text[i] === "-") i++;
    if (!isDigit(i)) this.fail(i, "a digit after '-'");
    if (text[i] === "0") {
      i++;
      if (isDigit(i)) this.fail(i, "'.', 'e' or the end of the number (a number has no leading zeros)");
    }
    while (isDigit(i)) i++;
    if (text[i] === ".") {
      i++;
      if (!isDigit(i)) this.fail(i, "a digit after the decimal point");
      while (isDigit(i)) i++;
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!isDigit(i)) this.fail(i, "a digit in the exponent");
      while (isDigit(i)) i++;
    }
    return this.token("number", start, i, Number(text.slice(start, i)));
  }
}
