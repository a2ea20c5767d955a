/**
 * Where a UTF-16 index falls in a text, as a person counts: 1-based, in characters (code points:
 * a surrogate pair is one), a line break being \n, \r\n or \r. For messages that point into text a
 * caller sent (a JSON body, an event-route filter).
 */
export interface TextPosition {
  /** The character's number from the start of the text. */
  position: number;
  line: number;
  column: number;
}

export function textPosition(text: string, index: number): TextPosition {
  let position = 1;
  let line = 1;
  let column = 1;
  for (let i = 0; i < index && i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // The first half of a surrogate pair is not a character of its own.
    if ((unit & 0xfc00) === 0xd800 && i + 1 < index && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) continue;
    position++;
    column++;
    if (unit === 0x0a || (unit === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      column = 1;
    }
  }
  return { position, line, column };
}

/** How many characters (code points) the text holds. */
export function characterCount(text: string): number {
  return textPosition(text, text.length).position - 1;
}
