/**
 * Errors are values with an ARM error code; src/http/errors.ts maps them to responses in one place.
 * Messages must never contain a secret: they are returned to callers.
 */
export interface ErrorDetail {
  code: string;
  message: string;
  target?: string;
}

export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;

  constructor(
    message: string,
    readonly target?: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidRequestContent extends DomainError {
  readonly status = 400;
  readonly code = "InvalidRequestContent";
}

export class InvalidApiVersion extends DomainError {
  readonly status = 400;
  readonly code = "InvalidApiVersionParameter";
}

/** A `$filter` the operation does not take (400): never ignored, since it would change the answer. */
export class InvalidFilter extends DomainError {
  readonly status = 400;
  readonly code = "InvalidFilter";
}

export class Unauthorized extends DomainError {
  readonly status = 401;
  readonly code = "Unauthorized";
}

/**
 * A missing or invalid bearer token (401). `code` is ARM's: AuthenticationFailed when there is no
 * token, InvalidAuthenticationToken when it does not hold. `challenge` is the WWW-Authenticate value
 * (RFC 6750 §3).
 */
export class AuthenticationFailed extends DomainError {
  readonly status = 401;

  constructor(
    message: string,
    readonly code: "AuthenticationFailed" | "InvalidAuthenticationToken",
    readonly challenge: string,
  ) {
    super(message);
  }
}

/** The caller may not perform the action at the scope (403). */
export class AuthorizationFailed extends DomainError {
  readonly status = 403;
  readonly code = "AuthorizationFailed";

  constructor(principalId: string, action: string, scope: string) {
    super(
      `The client '${principalId}' with object id '${principalId}' does not have authorization to perform action '${action}' over scope '${scope}' or the scope is invalid.`,
    );
  }
}

export class ResourceNotFound extends DomainError {
  readonly status = 404;
  readonly code = "ResourceNotFound";
}

export class MethodNotAllowed extends DomainError {
  readonly status = 405;
  readonly code = "MethodNotAllowed";
}

/** The request conflicts with what exists (a role assignment that may not change, or exists already). */
export class ResourceConflict extends DomainError {
  readonly status = 409;

  constructor(
    message: string,
    readonly code: string,
    target?: string,
  ) {
    super(message, target);
  }
}

export class QuotaExceeded extends DomainError {
  readonly status = 409;
  readonly code = "QuotaExceeded";
}

export class PreconditionFailed extends DomainError {
  readonly status = 412;
  readonly code = "PreconditionFailed";
}

export class PayloadTooLarge extends DomainError {
  readonly status = 413;
  readonly code = "PayloadTooLarge";
}

export class UnsupportedMediaType extends DomainError {
  readonly status = 415;
  readonly code = "UnsupportedMediaType";
}

/** A backing store is unreachable or throttling; the caller should retry after `retryAfterSeconds`. */
export class ServiceUnavailable extends DomainError {
  readonly status = 503;
  readonly code = "ServiceUnavailable";

  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

/** Throttled by a backing store (Cosmos 429); passed on with its retry hint. */
export class TooManyRequests extends DomainError {
  readonly status = 429;
  readonly code = "TooManyRequests";

  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * The 400 for a list of problems: one problem speaks for itself; several are summed up by the
 * fields they concern, with the problems counted apart when a field has more than one.
 */
export function invalidRequest(details: ErrorDetail[]): InvalidRequestContent {
  const first = details[0];
  if (details.length === 1 && first) return new InvalidRequestContent(first.message, first.target, details);
  const fields = [...new Set(details.map((detail) => detail.target))];
  const problems =
    details.length > fields.length ? ` (${details.length} problems, each listed in details)` : "";
  return new InvalidRequestContent(
    `The request has ${plural(fields.length, "invalid field")}: ${fields.join(", ")}${problems}.`,
    first?.target,
    details,
  );
}
