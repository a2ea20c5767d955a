import type { HttpRequest } from "@azure/functions";
import { InvalidRequestContent } from "../common/errors";
import type { Preconditions } from "../common/preconditions";
import type { ConditionalHeader } from "./route";

/**
 * One element of the list: blanks, maybe an entity tag as RFC 9110 §8.8.3 writes it (`[W/]"…"`,
 * the quoted part of etagc characters: `!`, `#` to `~`, and obs-text, which a header carries as
 * U+0080 to U+00FF), blanks, then a comma or the end. A tag may hold a comma: hence no split.
 */
const ELEMENT = /[ \t]*((?:W\/)?"[!#-~\u0080-\u00ff]*")?[ \t]*(?:,|$)/y;

/** The entity tags of a list, or undefined when it is not one. */
function entityTags(value: string): string[] | undefined {
  const tags: string[] = [];
  let index = 0;
  while (index < value.length) {
    ELEMENT.lastIndex = index;
    const element = ELEMENT.exec(value);
    if (element === null || element[0] === "") return undefined;
    if (element[1] !== undefined) tags.push(element[1]);
    index += element[0].length;
  }
  return tags.length === 0 ? undefined : tags;
}

/**
 * If-Match and If-None-Match (RFC 9110 §13.1.1, §13.1.2): `*`, or a comma-separated list of entity
 * tags. Empty list elements are skipped, as §5.6.1.2 asks; anything else that is not this grammar
 * (a bare word, a tag without quotes, `*` among tags, a value with no tag at all) is a 400 naming
 * the header: read loosely, it would answer 412 or be ignored, and the client would never learn why.
 */
export function parseConditionalHeader(name: ConditionalHeader, value: string): string[] {
  if (value.trim() === "*") return ["*"];
  const tags = entityTags(value);
  if (tags === undefined) {
    throw new InvalidRequestContent(
      `${name} must be * or a comma-separated list of entity tags such as "abc" or W/"abc" (RFC 9110).`,
      name,
    );
  }
  return tags;
}

const ALL: readonly ConditionalHeader[] = ["If-Match", "If-None-Match"];

/** The conditional headers of `honoured` the request carries, parsed; the others are not read. */
export function readPreconditions(
  request: HttpRequest,
  honoured: readonly ConditionalHeader[] = ALL,
): Preconditions {
  const read = (name: ConditionalHeader) => {
    const value = honoured.includes(name) ? request.headers.get(name) : null;
    return value === null ? undefined : parseConditionalHeader(name, value);
  };
  const ifMatch = read("If-Match");
  const ifNoneMatch = read("If-None-Match");
  return { ...(ifMatch && { ifMatch }), ...(ifNoneMatch && { ifNoneMatch }) };
}
