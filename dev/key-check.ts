import { timingSafeEqual } from "node:crypto";

export interface LocalKeys {
  functionKey: string;
  masterKey: string;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The key check the Functions host makes before a handler runs: `x-functions-key` or `?code=`;
 * function-level routes take the function key or the master key, admin-level only the master key.
 */
export function isAuthorized(authLevel: string, givenKey: string | null, keys: LocalKeys): boolean {
  if (authLevel.toLowerCase() === "anonymous") return true;
  if (givenKey === null || givenKey.length === 0) return false;
  if (sameSecret(givenKey, keys.masterKey)) return true;
  return authLevel.toLowerCase() === "function" && sameSecret(givenKey, keys.functionKey);
}
