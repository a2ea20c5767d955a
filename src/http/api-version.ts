import type { HttpRequest } from "@azure/functions";
import { InvalidApiVersion } from "../common/errors";
import { queryValue } from "./query";

/**
 * `api-version` is optional; when given (its name in any letter case, as ARM reads query names) it
 * must be one the resource type supports. Returns the version in force (the newest supported when
 * none is given).
 */
export function checkApiVersion(request: HttpRequest, supported: readonly string[]): string {
  const requested = queryValue(
    request,
    "api-version",
    (message, target) => new InvalidApiVersion(message, target),
  );
  if (requested === null) return supported[supported.length - 1] as string;
  if (supported.includes(requested)) return requested;
  throw new InvalidApiVersion(
    `The api-version '${truncate(requested)}' is not supported. The supported versions are '${supported.join(", ")}'.`,
    "api-version",
  );
}

function truncate(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
