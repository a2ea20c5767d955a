/**
 * Where a text stops being JSON (RFC 8259), for a message a person can act on: the line and column
 * (1-based), what was found there and what JSON allows there. JSON.parse's own messages differ
 * from one Node version to the next (some give a position, some none) and quote the text around
 * the fault, which can be a secret; this scan gives the same account on every version and names
 * what it found by kind (a letter, a digit), quoting only JSON's punctuation.
 *
 * It is asked only once JSON.parse has refused a text, so it costs nothing on the usual path. It
 * walks the text once with an explicit stack (`[[[[…` cannot overflow it) and follows the grammar
 * JSON.parse follows: a unit test holds its verdict to JSON.parse's on generated texts.
 */

import { textPosition } from "./text-position";

export interface JsonSyntaxError {
  /** The UTF-16 index of the fault in the text (its length when the text ends too soon). */
  index: number;
  /** 1-based, counting a line break as \n, \r\n or \r. */
  line: number;
  /** 1-based, in characters (code points) from the start of the line. */
  column: number;
  /** What is at the fault: `'}'`, `letter`, `end of the text`, `control character U+000A in a string`. */
  found: string;
  /** What JSON allows there: `a value`, `',' or '}'`, `a member name in double quotes`. */
  expected: string;
  /** `unexpected '}' at line 3, column 5 (expected a value)`. */
  message: string;
}

const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_U = 0x75;

/** What may come next, by where the scan is. */
type State =
  | "value"
  | "value-or-close-array"
  | "name"
  | "name-or-close-object"
  | "colon"
  | "comma-or-close-object"
  | "comma-or-close-array"
  | "end";

const EXPECTED: Record<State, string> = {
  value: "a value",
  "value-or-close-array": "a value or ']'",
  name: "a member name in double quotes",
  "name-or-close-object": "a member name in double quotes or '}'",
  colon: "':' after the member name",
  "comma-or-close-object": "',' or '}'",
  "comma-or-close-array": "',' or ']'",
  end: "nothing after the JSON value",
};

const LITERALS: Record<number, string> = { 116: "true", 102: "false", 110: "null" };

/** A fault found, before its line and column are counted. */
type Fault = { index: number; found?: string; expected: string };

function isDigit(char: number): boolean {
  return char >= DIGIT_0 && char <= DIGIT_9;
}

function isHexDigit(char: number): boolean {
  return isDigit(char) || (char >= 0x41 && char <= 0x46) || (char >= 0x61 && char <= 0x66);
}

function skipWhitespace(text: string, start: number): number {
  let i = start;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char !== SPACE && char !== TAB && char !== LINE_FEED && char !== CARRIAGE_RETURN) break;
    i++;
  }
  return i;
}

function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * The character at `index`, by kind: JSON's punctuation and other ASCII symbols quoted, letters
 * and digits (which may belong to a secret) not; spaces and marks JSON does not count as
 * whitespace (a byte order mark, a no-break space) by code point, as they are invisible.
 */
export function describeCharacter(text: string, index: number): string {
  if (index >= text.length) return "end of the text";
  const codePoint = text.codePointAt(index) as number;
  if (codePoint < 0x20 || codePoint === 0x7f) return `control character ${codePointName(codePoint)}`;
  if (codePoint === 0x27) return `"'"`;
  if (codePoint < 0x7f) {
    const char = String.fromCodePoint(codePoint);
    if (/[A-Za-z]/.test(char)) return "letter";
    if (/[0-9]/.test(char)) return "digit";
    return `'${char}'`;
  }
  const char = String.fromCodePoint(codePoint);
  if (codePoint === 0xfeff) return "byte order mark (U+FEFF)";
  if (/[\p{Z}\p{Cf}\p{Cc}]/u.test(char)) return `invisible character ${codePointName(codePoint)}`;
  if (/\p{Cs}/u.test(char)) return `lone surrogate ${codePointName(codePoint)}`;
  return "non-ASCII character";
}

/** The end of the string opening at `start` (the index after its closing quote), or its fault. */
function scanString(text: string, start: number): number | Fault {
  let i = start + 1;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) return i + 1;
    if (char < SPACE) {
      return {
        index: i,
        found: `${describeCharacter(text, i)} in a string`,
        expected: "it escaped, as \\n, \\t or \\u0000 and the like",
      };
    }
    if (char === BACKSLASH) {
      const escaped = text.charCodeAt(i + 1);
      if (escaped === LOWER_U) {
        for (let digit = i + 2; digit < i + 6; digit++) {
          if (digit >= text.length) return { index: digit, expected: "four hexadecimal digits after \\u" };
          if (!isHexDigit(text.charCodeAt(digit))) {
            return {
              index: digit,
              found: `${describeCharacter(text, digit)} in a \\u escape`,
              expected: "four hexadecimal digits after \\u",
            };
          }
        }
        i += 6;
        continue;
      }
      if (i + 1 < text.length && !'"\\/bfnrt'.includes(text[i + 1] as string)) {
        return {
          index: i,
          found: "escape sequence in a string",
          expected: 'one of \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u followed by four hexadecimal digits',
        };
      }
      i += 2;
      continue;
    }
    i++;
  }
  return { index: text.length, expected: "'\"' to close the string" };
}

/** The end of the number starting at `start`, or its fault. */
function scanNumber(text: string, start: number): number | Fault {
  let i = start;
  if (text.charCodeAt(i) === MINUS) i++;
  const first = text.charCodeAt(i);
  if (first === DIGIT_0) {
    i++;
    if (isDigit(text.charCodeAt(i))) {
      return { index: i, expected: "'.', 'e' or the end of the number; a JSON number has no leading zeros" };
    }
  } else if (first >= DIGIT_1 && first <= DIGIT_9) {
    while (isDigit(text.charCodeAt(i))) i++;
  } else {
    return { index: i, expected: "a digit after '-'" };
  }
  if (text.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return { index: i, expected: "a digit after the decimal point" };
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const exponent = text.charCodeAt(i);
  if (exponent === LOWER_E || exponent === UPPER_E) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === PLUS || sign === MINUS) i++;
    if (!isDigit(text.charCodeAt(i))) return { index: i, expected: "a digit in the exponent" };
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

/** The end of the literal (true, false, null) starting at `start`, or its fault. */
function scanLiteral(text: string, start: number, literal: string): number | Fault {
  for (let offset = 1; offset < literal.length; offset++) {
    if (text[start + offset] !== literal[offset]) {
      return { index: start + offset, expected: `the rest of '${literal}'` };
    }
  }
  return start + literal.length;
}

/** A scan under way: where it is, what may come next, the containers open (true: an object). */
interface Scan {
  readonly text: string;
  i: number;
  state: State;
  readonly open: boolean[];
  /** The last token was a comma (for the hint on a trailing one). */
  afterComma: boolean;
}

/** Where a scan goes once a value (or a container) is complete. */
function afterValue(scan: Scan): State {
  const { open } = scan;
  if (open.length === 0) return "end";
  return open[open.length - 1] ? "comma-or-close-object" : "comma-or-close-array";
}

function close(scan: Scan): undefined {
  scan.i++;
  scan.open.pop();
  scan.state = afterValue(scan);
  return undefined;
}

/** After a member or an item: a comma, or the container's close. */
function stepAfterItem(scan: Scan, char: number): Fault | undefined {
  const inObject = scan.state === "comma-or-close-object";
  if (char === (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) return close(scan);
  if (char !== COMMA) return unexpected(scan, char, false);
  scan.i++;
  scan.state = inObject ? "name" : "value";
  scan.afterComma = true;
  return undefined;
}

/** A member name (or, right after `{`, the close). */
function stepName(scan: Scan, char: number, comma: boolean): Fault | undefined {
  if (char === CLOSE_OBJECT && scan.state === "name-or-close-object") return close(scan);
  if (char !== QUOTE) return unexpected(scan, char, comma);
  const end = scanString(scan.text, scan.i);
  if (typeof end !== "number") return end;
  scan.i = end;
  scan.state = "colon";
  return undefined;
}

/** A value (or, right after `[`, the close). */
function stepValue(scan: Scan, char: number, comma: boolean): Fault | undefined {
  if (char === CLOSE_ARRAY && scan.state === "value-or-close-array") return close(scan);
  if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
    scan.open.push(char === OPEN_OBJECT);
    scan.i++;
    scan.state = char === OPEN_OBJECT ? "name-or-close-object" : "value-or-close-array";
    return undefined;
  }
  const { text, i } = scan;
  const literal = LITERALS[char];
  let end: number | Fault;
  if (char === QUOTE) end = scanString(text, i);
  else if (char === MINUS || isDigit(char)) end = scanNumber(text, i);
  else if (literal !== undefined) end = scanLiteral(text, i, literal);
  else return unexpected(scan, char, comma);
  if (typeof end !== "number") return end;
  scan.i = end;
  scan.state = afterValue(scan);
  return undefined;
}

/** The character at the scan is not what may come next. */
function unexpected(scan: Scan, char: number, afterComma: boolean): Fault {
  const trailing =
    afterComma && (char === CLOSE_ARRAY || char === CLOSE_OBJECT) ? "; JSON allows no comma before it" : "";
  return { index: scan.i, expected: `${EXPECTED[scan.state]}${trailing}` };
}

/** One token at the scan (whitespace skipped): its fault, or undefined having moved on. */
function step(scan: Scan, char: number, comma: boolean): Fault | undefined {
  switch (scan.state) {
    case "end":
      return unexpected(scan, char, comma);
    case "colon":
      if (char !== COLON) return unexpected(scan, char, comma);
      scan.i++;
      scan.state = "value";
      return undefined;
    case "comma-or-close-object":
    case "comma-or-close-array":
      return stepAfterItem(scan, char);
    case "name-or-close-object":
    case "name":
      return stepName(scan, char, comma);
    case "value-or-close-array":
    case "value":
      return stepValue(scan, char, comma);
  }
}

/** The first fault of the text, or undefined when it is JSON. */
function findFault(text: string): Fault | undefined {
  const scan: Scan = { text, i: 0, state: "value", open: [], afterComma: false };
  for (;;) {
    scan.i = skipWhitespace(text, scan.i);
    if (scan.i >= text.length) {
      return scan.state === "end" ? undefined : { index: scan.i, expected: EXPECTED[scan.state] };
    }
    const comma = scan.afterComma;
    scan.afterComma = false;
    const fault = step(scan, text.charCodeAt(scan.i), comma);
    if (fault !== undefined) return fault;
  }
}

/** Where and why the text is not JSON; undefined when it is. */
export function locateJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const fault = findFault(text);
  if (fault === undefined) return undefined;
  const { line, column } = textPosition(text, fault.index);
  const found = fault.found ?? describeCharacter(text, fault.index);
  return {
    index: fault.index,
    line,
    column,
    found,
    expected: fault.expected,
    message: `unexpected ${found} at line ${line}, column ${column} (expected ${fault.expected})`,
  };
}
