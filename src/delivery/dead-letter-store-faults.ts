import { type DomainError, ServiceUnavailable } from "../common/errors";
import { DeadLettersUnavailable } from "./dead-letters-unavailable";

const TARGET = "deadLetterStorageSecret";

/** The storage error code (x-ms-error-code), when the store answered with one. */
function storageCode(error: unknown): string | undefined {
  const given = error as { code?: unknown; details?: { errorCode?: unknown } } | null;
  const code = given?.details?.errorCode ?? given?.code;
  return typeof code === "string" && /^[A-Za-z]+$/.test(code) ? code : undefined;
}

/** What the endpoint's owner should know of a refusal, by the store's code. */
function refusal(status: number, code: string | undefined): string {
  const answered = `the dead-letter store answered ${status}${code === undefined ? "" : ` ${code}`}`;
  if (status >= 300 && status < 400)
    return `${answered}, a redirect, which the service does not follow: the deadLetterStorageSecret must name the container itself.`;
  if (code === "AuthorizationPermissionMismatch" || code === "AuthorizationResourceTypeMismatch")
    return `${answered}: the SAS token does not grant what redelivery needs, read, write and list (sp=rwl; dead-lettering needs create and write).`;
  if (status === 403)
    return `${answered}: it does not accept the SAS token (its signature does not match, or it has expired or been revoked). PATCH the endpoint with a new deadLetterStorageSecret.`;
  if (code === "ContainerNotFound" || status === 404)
    return `${answered}: the container the deadLetterStorageSecret names does not exist.`;
  return `${answered}.`;
}

/**
 * A fault of the endpoint's dead-letter store, as the answer to a redelivery: 503 (Retry-After)
 * when the store cannot be reached or is struggling, so the call may simply be repeated; 409
 * DeadLettersUnavailable when it refused the request (a missing permission, a bad or expired
 * SAS, a missing container, a redirect), which only a new deadLetterStorageSecret mends. The
 * message names the status and the store's code, never the URL or the store's own message, which
 * can quote the request.
 */
export function deadLetterStoreFault(error: unknown): DomainError {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status !== "number" || status === 408 || status === 429 || status >= 500) {
    return new ServiceUnavailable(
      "The endpoint's dead-letter store cannot be reached right now; repeat the redelivery later.",
      10,
    );
  }
  return new DeadLettersUnavailable(
    `The dead letters cannot be listed: ${refusal(status, storageCode(error))}`,
    TARGET,
  );
}
