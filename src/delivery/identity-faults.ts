import { describeError } from "../common/describe-error";
import {
  type DeadLetterTarget,
  deadLetterUrl,
  type ServiceBusTarget,
  targetIdentity,
} from "../endpoints/delivery-endpoint";
import { describeIdentity } from "../endpoints/managed-identity";
import { storageStatus } from "../store/storage-errors";

/**
 * What an identity-based endpoint's owner must do about a refusal, said as what it is: the
 * identity lacks a role on the owner's resource (a 401/403 from Service Bus or Storage), or it
 * could get no token at all (not attached to the app, or the identity endpoint refused it). The
 * ids named are no secrets; the error is described as any other (describe-error.ts).
 */
const SENDER_ROLE = "Azure Service Bus Data Sender";
const BLOB_ROLE = "Storage Blob Data Contributor";

/** `@azure/identity`'s errors when no token could be had, and the service's own for none in time. */
function isTokenFailure(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return (
    name === "CredentialUnavailableError" ||
    name === "AuthenticationError" ||
    name === "AggregateAuthenticationError" ||
    name === "TokenTimeoutError"
  );
}

/**
 * Service Bus refuses a sender without the role when the link attaches ("Unauthorized access.
 * 'Send' claim(s) are required …"), and a token it will not take (another audience or issuer,
 * expired, a bad signature) when it is put on `$cbs`: both as UnauthorizedAccess, told apart by
 * what they say.
 */
function isMissingRole(refusal: unknown): boolean {
  return /claim\(s\) are required|'Send' claim/i.test(
    String((refusal as { message?: unknown }).message ?? ""),
  );
}

function noToken(who: string, error: unknown): string {
  if ((error as { name?: unknown }).name === "TokenTimeoutError")
    return `${who} could get no token in time: the app's managed identity endpoint did not answer (IDENTITY_TOKEN_TIMEOUT_MS); it is asked again at the next attempt. ${describeError(error)}`;
  return `${who} could get no token (is it attached to the app, and listed in ENDPOINT_USER_ASSIGNED_IDENTITIES if user-assigned?): ${describeError(error)}`;
}

/**
 * The error itself, or those it wraps: the Service Bus client retries an UnauthorizedAccess (it
 * may be a rotated key) and, its retries spent, throws an AggregateError of every attempt's error.
 * Read by shape, not `instanceof`: the error may come from another realm (a test's vm context).
 */
function causes(error: unknown): unknown[] {
  const wrapped = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(wrapped) ? [error, ...wrapped] : [error];
}

/** A send refused for want of a role, or of a token; undefined for any other failure, or a key. */
export function serviceBusIdentityFault(
  error: unknown,
  target: ServiceBusTarget,
  topic: string,
): string | undefined {
  const identity = targetIdentity(target);
  if (identity === undefined || "connectionString" in target) return undefined;
  const who = describeIdentity(identity);
  const all = causes(error);
  const tokenFailure = all.find(isTokenFailure);
  if (tokenFailure !== undefined) return noToken(who, tokenFailure);
  const refusal = all.find((each) => (each as { code?: unknown } | null)?.code === "UnauthorizedAccess");
  if (refusal === undefined) return undefined;
  if (!isMissingRole(refusal))
    return `${target.namespace} refused the token of ${who}: ${describeError(refusal)}`;
  return `${who} may not send to topic '${topic}' of ${target.namespace}: grant it the ${SENDER_ROLE} role on the topic (or its namespace). ${describeError(refusal)}`;
}

/** A dead-letter write or read refused for want of a role, or of a token; undefined otherwise, or for a SAS. */
export function storageIdentityFault(error: unknown, target: DeadLetterTarget): string | undefined {
  const identity = targetIdentity(target);
  if (identity === undefined) return undefined;
  const who = describeIdentity(identity);
  if (isTokenFailure(error)) return noToken(who, error);
  const status = storageStatus(error);
  if (status !== 401 && status !== 403) return undefined;
  const url = new URL(deadLetterUrl(target));
  return `${who} may not use the dead-letter container ${url.host}${url.pathname}: grant it the ${BLOB_ROLE} role on the container (the store answered ${status}). ${describeError(error)}`;
}
