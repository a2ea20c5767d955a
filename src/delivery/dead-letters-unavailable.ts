import { DomainError } from "../common/errors";

/**
 * The endpoint's dead letters cannot be redelivered, and repeating the call will not change that
 * (409): no usable dead-letter secret, a SAS token without the permissions redelivery needs, or a
 * store that refuses it. The message says which, never the secret.
 */
export class DeadLettersUnavailable extends DomainError {
  readonly status = 409;
  readonly code = "DeadLettersUnavailable";
}
