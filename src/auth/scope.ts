import { nameKey } from "../common/name-key";

/**
 * A role assignment's scope as stored: its segments, and each as a name key (src/common/name-key.ts),
 * for finding the assignments at a scope and above it. Authorization never compares these: it
 * compares typed ids (src/auth/arm-id.ts).
 */
export type ScopeKey = readonly string[];

/** The segments of a path written with '/' ("/" alone is the root, no segments). */
export function pathSegments(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

export function scopeKeyOf(segments: readonly string[]): ScopeKey {
  return segments.map(nameKey);
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
