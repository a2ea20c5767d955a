import { ServiceUnavailable } from "../common/errors";

/**
 * Storage SDK failures that mean "the account cannot be reached or is struggling" become a 503
 * the caller can retry; anything else (a 4xx: a bug on our side) stays as it is.
 */
export function translateStorageError(error: unknown): unknown {
  const status = (error as { statusCode?: number } | null)?.statusCode;
  if (status === undefined || status === 408 || status === 429 || status >= 500) {
    return new ServiceUnavailable("The storage account cannot be reached right now.", 5);
  }
  return error;
}
