import { MAX_JSON_DEPTH } from "./json-depth";

/** Why a text was refused. Nothing here quotes the text's values: messages go back to callers. */
export type JsonRefusal =
  | { reason: "syntax"; message: string }
  | { reason: "too-deep"; maxDepth: number }
  /** `pointer` is the RFC 6901 JSON pointer of the second copy of the member. */
  | { reason: "duplicate-member"; pointer: string };

export type StrictJsonResult = { ok: true; value: unknown } | { ok: false; refusal: JsonRefusal };

/**
 * JSON.parse, plus the I-JSON rules it does not enforce (RFC 7493): no object may repeat a member
 * name (compared after unescaping, so `"Pass\u0077ord"` repeats `"Password"`), and nesting is
 * capped at `maxDepth`. JSON.parse keeps the last copy of a repeated name while other parsers
 * keep the first, so a check on one copy could be bypassed with the other.
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
  } catch (error) {
    return { ok: false, refusal: { reason: "syntax", message: syntaxMessage(error) } };
  }
  const refusal = structureProblem(text, maxDepth);
  return refusal === undefined ? { ok: true, value } : { ok: false, refusal };
}

/**
 * V8's messages quote the text around the fault (`Unexpected token 'h', "{"a":hunter2}" is not
 * valid JSON`), which can be a secret: keep only the position, when there is one.
 */
function syntaxMessage(error: unknown): string {
  const position = /at position (\d+)/.exec(error instanceof Error ? error.message : "")?.[1];
  return position === undefined ? "it is not valid JSON" : `it is not valid JSON (at position ${position})`;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

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

/** Walks valid JSON text once, tracking open containers; the first duplicate or over-deep container. */
function structureProblem(text: string, maxDepth: number): JsonRefusal | undefined {
  const frames: Frame[] = [];
  // True where the next string is a member name: after `{` and after a `,` inside an object.
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      const end = closingQuote(text, i);
      if (nameNext) {
        const frame = frames[frames.length - 1] as ObjectFrame;
        const name = memberName(text, i, end);
        if (repeats(frame, name)) {
          return { reason: "duplicate-member", pointer: pointerTo(frames.slice(0, -1), name) };
        }
        frame.member = name;
        nameNext = false;
      }
      i = end;
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

/** The member name as JSON.parse reads it: escapes decoded. */
function memberName(text: string, openingQuote: number, closingQuote: number): string {
  const raw = text.slice(openingQuote + 1, closingQuote);
  return raw.includes("\\") ? (JSON.parse(text.slice(openingQuote, closingQuote + 1)) as string) : raw;
}

function pointerTo(parents: Frame[], name: string): string {
  const segments = parents.map((frame) => ("index" in frame ? String(frame.index) : frame.member));
  return [...segments, name]
    .map((segment) => `/${segment.replace(/~/g, "~0").replace(/\//g, "~1")}`)
    .join("");
}

/** A pointer for a message: long names are cut, so a message stays readable. */
export function describePointer(pointer: string): string {
  return pointer.length > 120 ? `${pointer.slice(0, 120)}…` : pointer;
}
