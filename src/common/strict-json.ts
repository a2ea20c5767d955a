import { MAX_JSON_DEPTH } from "./json-depth";
import { locateJsonSyntaxError } from "./json-syntax";

/** Why a text was refused. Nothing here quotes the text's values: messages go back to callers. */
export type JsonRefusal =
  /**
   * Not JSON (RFC 8259). `message` says where, 1-based, and what was found and expected:
   * `unexpected '}' at line 3, column 5 (expected a value)`; `line` and `column` are its numbers.
   */
  | { reason: "syntax"; message: string; line?: number; column?: number }
  | { reason: "too-deep"; maxDepth: number }
  /** `pointer` is the RFC 6901 JSON pointer of the second copy of the member. */
  | { reason: "duplicate-member"; pointer: string }
  /**
   * A string (member name or value) at `pointer` holds a lone surrogate (`"\ud800"`): UTF-8 cannot
   * carry it, so whatever stores or sends it writes U+FFFD instead, and two different texts become
   * one (RFC 7493 §2.1).
   */
  | { reason: "lone-surrogate"; pointer: string }
  /** A number at `pointer` beyond a double's range: JSON.parse reads Infinity, which JSON cannot write (RFC 7493 §2.2). */
  | { reason: "number-out-of-range"; pointer: string };

export type StrictJsonResult = { ok: true; value: unknown } | { ok: false; refusal: JsonRefusal };

/**
 * JSON.parse, plus the I-JSON rules it does not enforce (RFC 7493): no object may repeat a member
 * name (compared after unescaping, so `"Pass\u0077ord"` repeats `"Password"`), no string may hold
 * a lone surrogate, no number may overflow a double, and nesting is capped at `maxDepth`.
 * JSON.parse keeps the last copy of a repeated name while other parsers keep the first, so a check
 * on one copy could be bypassed with the other. A lone surrogate or an overflowing number is read
 * without complaint but cannot be written back as it came (UTF-8 has no surrogates: U+FFFD; JSON
 * has no Infinity: `null`), so two events `X-\ud800` and `X-\udbff` would leave as one id.
 *
 * Why not a library: the candidates (@humanwhocodes/momoa, jsonc-parser, jsonparse) either build
 * no duplicate check in, parse recursively (a body of `[[[[…` overflows the stack), or are
 * unmaintained. So JSON.parse does the parsing and an iterative scan of the (by then known-valid)
 * text does the checks, in linear time with a stack of at most `maxDepth` frames.
 */
export function parseStrictJson(text: string, maxDepth: number = MAX_JSON_DEPTH): StrictJsonResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, refusal: syntaxRefusal(text) };
  }
  const refusal = structureProblem(text, maxDepth);
  return refusal === undefined ? { ok: true, value } : { ok: false, refusal };
}

/**
 * Why JSON.parse refused the text, said where (line and column) and with what was expected there
 * (json-syntax.ts; V8's own message varies with the Node version and quotes the text around the
 * fault, which can be a secret).
 */
function syntaxRefusal(text: string): JsonRefusal {
  const located = locateJsonSyntaxError(text);
  // The scan follows JSON.parse's grammar; should they ever differ, the refusal still stands.
  if (located === undefined) return { reason: "syntax", message: "it is not valid JSON" };
  return { reason: "syntax", message: located.message, line: located.line, column: located.column };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const PLUS = 0x2b;
const DOT = 0x2e;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** A lone surrogate: with the u flag a paired one is one code point, which \p{Cs} does not match. */
const LONE_SURROGATE = /\p{Cs}/u;
/**
 * Whether the text may hold one at all (a `\uD8…`-`\uDF…` escape, or a raw surrogate, paired or
 * not): most texts have neither, and then no string is decoded to look.
 */
const MAY_HOLD_SURROGATE = /\\u[dD][89a-fA-F]|[\ud800-\udfff]/;

/** An open object (the names seen so far, and the member being read) or array (the item's index). */
type ObjectFrame = { names: string[] | Set<string> | undefined; member: string };
type Frame = ObjectFrame | { index: number };

/** Up to this many names an object's are kept in an array (cheaper than a Set for the usual few). */
const NAMES_IN_ARRAY = 8;

/** Whether the object already has the name; else remembers it. */
function repeats(frame: ObjectFrame, name: string): boolean {
  let names = frame.names;
  if (names === undefined) {
    frame.names = [name];
    return false;
  }
  if (Array.isArray(names)) {
    if (names.includes(name)) return true;
    if (names.length < NAMES_IN_ARRAY) {
      names.push(name);
      return false;
    }
    names = frame.names = new Set(names);
  }
  if (names.has(name)) return true;
  names.add(name);
  return false;
}

/**
 * Walks valid JSON text once, tracking open containers: the first duplicate, over-deep container,
 * string with a lone surrogate or number out of range.
 */
function structureProblem(text: string, maxDepth: number): JsonRefusal | undefined {
  const frames: Frame[] = [];
  const checkSurrogates = MAY_HOLD_SURROGATE.test(text);
  // True where the next string is a member name: after `{` and after a `,` inside an object.
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      const end = closingQuote(text, i);
      if (nameNext) {
        const frame = frames[frames.length - 1] as ObjectFrame;
        const name = stringAt(text, i, end);
        if (checkSurrogates && LONE_SURROGATE.test(name)) {
          return { reason: "lone-surrogate", pointer: pointerTo(frames.slice(0, -1), name) };
        }
        if (repeats(frame, name)) {
          return { reason: "duplicate-member", pointer: pointerTo(frames.slice(0, -1), name) };
        }
        frame.member = name;
        nameNext = false;
      } else if (checkSurrogates && LONE_SURROGATE.test(stringAt(text, i, end))) {
        return { reason: "lone-surrogate", pointer: pointerTo(frames) };
      }
      i = end;
    } else if (char === MINUS || (char >= DIGIT_0 && char <= DIGIT_9)) {
      // Outside strings only a number starts so. It overflows to Infinity past 1.8e308, which
      // takes an exponent or 309 digits: others are not read again (most numbers, cheaply).
      let end = i + 1;
      let exponent = false;
      for (; end < text.length; end++) {
        const next = text.charCodeAt(end);
        if (next === LOWER_E || next === UPPER_E) exponent = true;
        else if (!((next >= DIGIT_0 && next <= DIGIT_9) || next === MINUS || next === PLUS || next === DOT))
          break;
      }
      if ((exponent || end - i >= 309) && !Number.isFinite(Number(text.slice(i, end)))) {
        return { reason: "number-out-of-range", pointer: pointerTo(frames) };
      }
      i = end - 1;
    } else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
      if (frames.length >= maxDepth) return { reason: "too-deep", maxDepth };
      frames.push(char === OPEN_OBJECT ? { names: undefined, member: "" } : { index: 0 });
      nameNext = char === OPEN_OBJECT;
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      frames.pop();
      nameNext = false;
    } else if (char === COMMA) {
      const frame = frames[frames.length - 1];
      if (frame !== undefined && "index" in frame) frame.index++;
      else nameNext = true;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opening at `start` (the text is valid JSON). */
function closingQuote(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) return i;
    i += char === BACKSLASH ? 2 : 1;
  }
  return text.length;
}

/** The string (a member name or value) as JSON.parse reads it: escapes decoded. */
function stringAt(text: string, openingQuote: number, closingQuote: number): string {
  const raw = text.slice(openingQuote + 1, closingQuote);
  return raw.includes("\\") ? (JSON.parse(text.slice(openingQuote, closingQuote + 1)) as string) : raw;
}

/** The pointer of the member `name` below `parents`; without a name, of the value being read in the last of them. */
function pointerTo(parents: Frame[], name?: string): string {
  const segments = parents.map((frame) => ("index" in frame ? String(frame.index) : frame.member));
  if (name !== undefined) segments.push(name);
  return segments.map((segment) => `/${segment.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** A pointer for a message: long names are cut, so a message stays readable. */
export function describePointer(pointer: string): string {
  return pointer.length > 120 ? `${pointer.slice(0, 120)}…` : pointer;
}

/** Where a pointer is, for a message: the quoted pointer, or "the top level" for "" (the whole text). */
export function describeLocation(pointer: string): string {
  return pointer === "" ? "the top level" : `'${describePointer(pointer)}'`;
}
