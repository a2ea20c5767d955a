import { type DomainError, ServiceUnavailable } from "../common/errors";
import type { DeadLetterTarget } from "../endpoints/delivery-endpoint";
import { isPassingStorageFault, storageStatus } from "../store/storage-errors";
import { DeadLettersUnavailable } from "./dead-letters-unavailable";
import { storageIdentityFault } from "./identity-faults";

const TARGET = "deadLetterStorageSecret";

/** The storage error code (x-ms-error-code), when the store answered with one. */
export function storageCode(error: unknown): string | undefined {
  const given = error as { code?: unknown; details?: { errorCode?: unknown } } | null;
  const code = given?.details?.errorCode ?? given?.code;
  return typeof code === "string" && /^[A-Za-z]+$/.test(code) ? code : undefined;
}

/** What redelivery was doing with the dead letters when the store failed it, and the permission that needs. */
export type StoreStep = "listed" | "read" | "claimed" | "marked";
const PERMISSION: Record<StoreStep, string> = {
  listed: "list (l)",
  read: "read (r)",
  claimed: "write (w)",
  marked: "write (w)",
};

/** What the endpoint's owner should know of a refusal, by the store's code. */
function refusal(status: number, code: string | undefined, step: StoreStep): string {
  const answered = `the dead-letter store answered ${status}${code === undefined ? "" : ` ${code}`}`;
  if (status >= 300 && status < 400)
    return `${answered}, a redirect, which the service does not follow: the deadLetterStorageSecret must name the container itself.`;
  if (code === "AuthorizationPermissionMismatch" || code === "AuthorizationResourceTypeMismatch")
    return `${answered}: the deadLetterStorageSecret lacks ${PERMISSION[step]} permission (redelivery needs read, write and list, sp=rwl; dead-lettering needs create and write). PATCH the endpoint with a SAS token that grants them.`;
  if (status === 403)
    return `${answered}: it does not accept the SAS token (its signature does not match, it lacks a permission, or it has expired or been revoked). PATCH the endpoint with a new deadLetterStorageSecret.`;
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
 * can quote the request; `progress` says what the call did before (dead-letter-redelivery.ts).
 */
export function deadLetterStoreFault(
  error: unknown,
  step: StoreStep = "listed",
  progress = "",
  target?: DeadLetterTarget,
): DomainError {
  const status = storageStatus(error);
  const after = progress === "" ? "" : ` ${progress}`;
  // An identity's refusal (no role, no token) is the owner's to mend with a role assignment.
  const identityFault = target && storageIdentityFault(error, target);
  if (identityFault !== undefined) {
    return new DeadLettersUnavailable(
      `The dead letters cannot be ${step}: ${identityFault}${after}`,
      "deadLetterUri",
    );
  }
  if (status === undefined || isPassingStorageFault(error)) {
    return new ServiceUnavailable(
      `The endpoint's dead-letter store failed or did not answer while the dead letters were being ${step}; repeat the redelivery later.${after}`,
      10,
    );
  }
  return new DeadLettersUnavailable(
    `The dead letters cannot be ${step}: ${refusal(status, storageCode(error), step)}${after}`,
    TARGET,
  );
}
