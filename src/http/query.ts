import type { HttpRequest } from "@azure/functions";
import { InvalidFilter, InvalidRequestContent } from "../common/errors";

/** Lower-cases A-Z only: `$ſkipToken` or a Kelvin sign must not pass for a name ARM would not take. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

/** Whether two query parameter names are the same one: ARM compares them case-insensitively. */
export function sameQueryName(a: string, b: string): boolean {
  return asciiLower(a) === asciiLower(b);
}

/** The request's query, every parameter as sent (repeats too): from its URL, as the Functions host does. */
function queryOf(request: HttpRequest): URLSearchParams {
  const url = request.url;
  const start = url.indexOf("?");
  if (start < 0) return new URLSearchParams();
  const end = url.indexOf("#", start);
  return new URLSearchParams(end < 0 ? url.slice(start) : url.slice(start, end));
}

/**
 * A query parameter's value, its name matched in any letter case (`API-VERSION` is `api-version`,
 * as ARM reads it); null when absent. Given more than once with different values it is a 400
 * (`make` builds it): which one wins would be a guess. The same value repeated is that value.
 */
export function queryValue(
  request: HttpRequest,
  name: string,
  make: (message: string, target: string) => Error = (message, target) =>
    new InvalidRequestContent(message, target),
): string | null {
  // Most requests carry no query at all: nothing to parse.
  if (!request.url.includes("?")) return null;
  const values = new Set<string>();
  for (const [key, value] of queryOf(request)) {
    if (sameQueryName(key, name)) values.add(value);
  }
  if (values.size > 1) {
    throw make(`The query parameter '${name}' is given more than once, with different values.`, name);
  }
  const [value] = values;
  return value ?? null;
}

/** The query of a URL without any spelling of `names` (a link must not repeat what it replaces). */
export function deleteQueryNames(url: URL, names: readonly string[]): void {
  const doomed = [...url.searchParams.keys()].filter((key) => names.some((name) => sameQueryName(key, name)));
  for (const key of new Set(doomed)) url.searchParams.delete(key);
}

/**
 * Refuses a query parameter named with `$` (OData's options: `$filter`, `$orderby`, `$select`,
 * `$expand`, `$skip`, `$count`, `$search`, …), in any letter case, that the operation does not take
 * (`taken`): each would change the answer where it is honoured, so none is ignored. `$filter` is
 * InvalidFilter, any other InvalidRequestContent, with the parameter as `target`. Other unknown
 * names are ignored, as ARM ignores them.
 */
export function refuseUntakenOptions(request: HttpRequest, taken: readonly string[]): void {
  if (!request.url.includes("?")) return;
  for (const key of queryOf(request).keys()) {
    if (!key.startsWith("$") || taken.some((name) => sameQueryName(key, name))) continue;
    const takes = taken.length === 0 ? "it takes none" : `it takes ${taken.join(", ")}`;
    if (sameQueryName(key, "$filter"))
      throw new InvalidFilter(`This operation takes no $filter: ${takes}.`, "$filter");
    // The name as sent when it is a plain one; a message never carries arbitrary text.
    const name = /^\$[A-Za-z]{1,32}$/.test(key) ? key : "$";
    throw new InvalidRequestContent(
      `The query parameter '${name}' is not supported by this operation (${takes}); it would change the answer, so it is not ignored.`,
      name,
    );
  }
}
