import { PreconditionFailed } from "./errors";

/** The conditional-request headers of a write, parsed; a service never sees the HTTP request itself. */
export interface Preconditions {
  ifMatch?: string[];
  ifNoneMatch?: string[];
}

/** What `.` does not match: a tag holding one is left to the expressions below, as before. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** Entity tags are compared without quotes and weakness markers, as RFC 9110 weak comparison does. */
export function normalizeEtag(etag: string): string {
  // The usual case, a quoted strong tag as stored: no expression needed.
  const quoted = etag.length >= 2 && etag.charCodeAt(0) === 0x22 && etag.charCodeAt(etag.length - 1) === 0x22;
  if (quoted && !LINE_BREAK.test(etag)) {
    return etag.slice(1, -1);
  }
  return etag
    .trim()
    .replace(/^W\//, "")
    .replace(/^"(.*)"$/, "$1");
}

/** A weak tag, `W/"…"` (the service only ever gives out strong ones). */
function isWeak(etag: string): boolean {
  return etag.trimStart().startsWith("W/");
}

/**
 * RFC 9110 §8.8.3.2: If-Match compares strongly, so a weak tag in it never matches (§13.1.1), not
 * even `W/` of the current tag; If-None-Match compares weakly, ignoring `W/`.
 */
function matches(list: string[], currentEtag: string | undefined, comparison: "strong" | "weak"): boolean {
  if (currentEtag === undefined) return false;
  if (list.includes("*")) return true;
  const current = normalizeEtag(currentEtag);
  return list.some(
    (candidate) => !(comparison === "strong" && isWeak(candidate)) && normalizeEtag(candidate) === current,
  );
}

export function hasPreconditions(preconditions: Preconditions): boolean {
  return preconditions.ifMatch !== undefined || preconditions.ifNoneMatch !== undefined;
}

/**
 * Checks a write's preconditions against the current version (undefined: the resource is absent).
 * `*` in If-Match means "must exist"; `*` in If-None-Match means "must not exist".
 */
export function checkPreconditions(preconditions: Preconditions, currentEtag: string | undefined): void {
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch && !matches(ifMatch, currentEtag, "strong")) {
    throw new PreconditionFailed(
      currentEtag === undefined
        ? "If-Match was given but the resource does not exist."
        : matches(ifMatch, currentEtag, "weak")
          ? "If-Match names the current ETag only as a weak tag (W/), which never matches If-Match (RFC 9110 §13.1.1): send the ETag as given."
          : "The resource has changed: If-Match does not match its current ETag.",
      "If-Match",
    );
  }
  if (ifNoneMatch && matches(ifNoneMatch, currentEtag, "weak")) {
    throw new PreconditionFailed(
      ifNoneMatch.includes("*")
        ? "If-None-Match: * was given but the resource already exists."
        : "If-None-Match matches the resource's current ETag.",
      "If-None-Match",
    );
  }
}

/** The ETag header value for a stored version: always a quoted strong tag. */
export function formatEtag(storeEtag: string): string {
  return `"${normalizeEtag(storeEtag)}"`;
}

/** A read whose If-None-Match names the current version answers 304. */
export function isNotModified(ifNoneMatch: string[] | undefined, currentEtag: string): boolean {
  return ifNoneMatch !== undefined && matches(ifNoneMatch, currentEtag, "weak");
}
