import type { HttpResponseInit } from "@azure/functions";
import { setOwnProperty } from "../common/own-property";

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SURROUNDING_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;

function isWhitespace(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function normalizedValue(name: string, value: string): string {
  const padded = isWhitespace(value.charCodeAt(0)) || isWhitespace(value.charCodeAt(value.length - 1));
  const trimmed = padded ? value.replace(SURROUNDING_WHITESPACE, "") : value;
  if (FORBIDDEN_IN_VALUE.test(trimmed))
    throw new TypeError(`The value of the header '${name}' is not valid.`);
  return trimmed;
}

/**
 * Response headers as a Fetch Headers object holds them (names lower-cased, a repeated name's
 * values joined with ", ", values trimmed, invalid names or values a TypeError), without building
 * one: handlers answer plain records, and a Headers costs microseconds a request. sortedByName
 * then lists them in the order Headers does.
 */
export function headerRecord(init: HttpResponseInit["headers"]): Record<string, string> {
  if (init === undefined) return {};
  if (init instanceof Headers) return Object.fromEntries(init.entries());
  const pairs: Iterable<readonly [string, string]> = Array.isArray(init) ? init : Object.entries(init);
  const merged: Record<string, string> = {};
  for (const [name, value] of pairs) {
    if (!TOKEN.test(name)) throw new TypeError(`'${name}' is not a valid header name.`);
    const key = name.toLowerCase();
    const normalized = normalizedValue(name, String(value));
    // `__proto__` is a valid header name (a token): setOwnProperty keeps it a header.
    setOwnProperty(merged, key, Object.hasOwn(merged, key) ? `${merged[key]}, ${normalized}` : normalized);
  }
  return merged;
}

/**
 * The headers in the order Headers.entries() lists them: by name (code unit order, as sort()).
 * An insertion sort: a response has a handful of names, and Array.prototype.sort allocates its
 * work arrays on each call (about 0.9 KB a response).
 */
export function sortedByName(headers: Record<string, string>): Record<string, string> {
  const names = Object.keys(headers);
  for (let index = 1; index < names.length; index++) {
    const name = names[index] as string;
    let at = index - 1;
    while (at >= 0 && (names[at] as string) > name) {
      names[at + 1] = names[at] as string;
      at--;
    }
    names[at + 1] = name;
  }
  const sorted: Record<string, string> = {};
  for (const name of names) setOwnProperty(sorted, name, headers[name] as string);
  return sorted;
}
