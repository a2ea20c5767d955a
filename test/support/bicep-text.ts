/**
 * Reading Bicep as text, for the static tests of infra/ that check what the compiled ARM JSON of
 * test/unit/infra-compiled.test.ts cannot show: the braces of one declaration, and code without its
 * comments.
 */

/** The `{ ... }` (or `[ ... ]`) that follows `header`, braces in strings and comments aside. */
export function block(source: string, header: string | RegExp): string {
  const match = typeof header === "string" ? source.indexOf(header) : source.search(header);
  if (match < 0) throw new Error(`no ${String(header)} in the Bicep`);
  const open = source.slice(match).search(/[{[]/) + match;
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "'") {
      for (i++; i < source.length && source[i] !== "'"; i++) if (source[i] === "\\") i++;
    } else if (c === "/" && source[i + 1] === "/") {
      i = source.indexOf("\n", i);
      if (i < 0) break;
    } else if (c === "{" || c === "[") {
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return source.slice(match, i + 1);
    }
  }
  throw new Error(`${String(header)} is not closed`);
}

/**
 * Without `//` comments, so that a commented-out line never counts; a `//` inside a string
 * ('api://…', 'https://…') is kept.
 */
export function code(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const start = i;
      for (i++; i < text.length && text[i] !== "'"; i++) if (text[i] === "\\") i++;
      out += text.slice(start, i + 1);
    } else if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      if (end < 0) break;
      i = end - 1;
    } else {
      out += c;
    }
  }
  return out;
}
