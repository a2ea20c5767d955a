import { nameKey } from "../common/name-key";

/**
 * A scope or resource id as its segments, each a name key (src/common/name-key.ts): the same
 * case-insensitive comparison the stores use, so a scope and the resource it covers can never
 * disagree on spelling. A value is one segment whatever it holds: a name that decodes to `A/..`
 * stays one segment and never climbs out of its parent.
 */
export type ScopeKey = readonly string[];

/** The segments of a path written with '/' ("/" alone is the root, no segments). */
export function pathSegments(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

export function scopeKeyOf(segments: readonly string[]): ScopeKey {
  return segments.map(nameKey);
}

/** Whether an assignment at `scope` covers `resource`: a prefix on segment boundaries. */
export function covers(scope: ScopeKey, resource: ScopeKey): boolean {
  if (scope.length > resource.length) return false;
  for (let index = 0; index < scope.length; index++) {
    if (scope[index] !== resource[index]) return false;
  }
  return true;
}

/** A path as ARM writes it: "/" for the root. */
export function scopePath(segments: readonly string[]): string {
  return `/${segments.join("/")}`;
}

/**
 * The segments of a request's resource: the route template with each `{param}` replaced by its
 * value (one segment each, as matched).
 */
export function requestSegments(template: string, params: Readonly<Record<string, string>>): string[] {
  return pathSegments(template).map((segment) => {
    const param = /^\{\*?([^}]+)\}$/.exec(segment)?.[1];
    return param === undefined ? segment : (params[param] ?? "");
  });
}
