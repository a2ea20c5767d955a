import { timingSafeEqual } from "node:crypto";
import type { AuthLevel } from "../src/http/route";

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
export function isAuthorized(authLevel: AuthLevel, givenKey: string | null, keys: LocalKeys): boolean {
  if (authLevel === "anonymous") return true;
  if (givenKey === null || givenKey.length === 0) return false;
  if (sameSecret(givenKey, keys.masterKey)) return true;
  return authLevel === "function" && sameSecret(givenKey, keys.functionKey);
}
