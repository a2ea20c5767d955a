import { DomainError, PreconditionFailed, ServiceUnavailable, TooManyRequests } from "../common/errors";

/** Raised by the store when a create finds the id taken; services decide what it means. */
export class Conflict extends DomainError {
  readonly status = 409;
  readonly code = "Conflict";
}

const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

interface CosmosLikeError {
  code?: number | string;
  statusCode?: number;
  retryAfterInMs?: number;
  name?: string;
  cause?: unknown;
}

function isUnreachable(error: CosmosLikeError, depth = 0): boolean {
  if (depth > 3 || error === null || typeof error !== "object") return false;
  if (typeof error.code === "string" && UNREACHABLE_CODES.has(error.code)) return true;
  if (error.name === "TimeoutError" || error.name === "AbortError") return true;
  return isUnreachable(error.cause as CosmosLikeError, depth + 1);
}

/**
 * Turns a Cosmos SDK failure into the domain error a caller can act on. 404 is not handled here:
 * every store method answers "absent" as a value.
 */
export function translateCosmosError(error: unknown): unknown {
  if (error instanceof DomainError || error === null || typeof error !== "object") return error;
  const cosmosError = error as CosmosLikeError;
  const status = typeof cosmosError.code === "number" ? cosmosError.code : cosmosError.statusCode;
  if (status === 412) return new PreconditionFailed("The resource was changed concurrently.", "If-Match");
  if (status === 409) return new Conflict("A resource with this id already exists.");
  if (status === 429) {
    return new TooManyRequests(
      "The data store is throttling requests.",
      Math.max(1, Math.ceil((cosmosError.retryAfterInMs ?? 1000) / 1000)),
    );
  }
  if (status === 408 || status === 503 || status === 500 || isUnreachable(cosmosError)) {
    return new ServiceUnavailable("The data store cannot be reached right now.", 5);
  }
  return error;
}

export function isNotFound(error: unknown): boolean {
  return (error as CosmosLikeError | null)?.code === 404;
}
