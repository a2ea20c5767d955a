import { ServiceUnavailable } from "../common/errors";

/** The HTTP status a Storage SDK error carries; undefined when the store gave no answer. */
export function storageStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** A store that cannot be reached or is struggling (no answer, 408, 429, 5xx): repeating the call later may do. */
export function isPassingStorageFault(error: unknown): boolean {
  const status = storageStatus(error);
  return status === undefined || status === 408 || status === 429 || status >= 500;
}

/**
 * Storage SDK failures that mean "the account cannot be reached or is struggling" become a 503
 * the caller can retry; anything else (a 4xx: a bug on our side) stays as it is.
 */
export function translateStorageError(error: unknown): unknown {
  return isPassingStorageFault(error)
    ? new ServiceUnavailable("The storage account cannot be reached right now.", 5)
    : error;
}
