import type { HttpResponseInit } from "@azure/functions";
import {
  AuthenticationFailed,
  DomainError,
  type ErrorDetail,
  ServiceUnavailable,
  TooManyRequests,
} from "../common/errors";
import { z } from "../common/zod";

export interface ArmErrorBody {
  error: { code: string; message: string; target?: string; details?: ErrorDetail[] };
}

export function armErrorBody(error: DomainError): ArmErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.target !== undefined && { target: error.target }),
      ...(error.details.length > 0 && { details: error.details }),
    },
  };
}

/**
 * The one place where errors become responses. Anything that is not a DomainError is a bug or an
 * unexpected fault: the caller gets a bare 500 and the details stay in the log (never in the body,
 * which could otherwise leak internals).
 */
export function errorResponse(error: unknown): HttpResponseInit {
  if (error instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (error instanceof ServiceUnavailable || error instanceof TooManyRequests) {
      headers["Retry-After"] = String(error.retryAfterSeconds);
    }
    if (error instanceof AuthenticationFailed) headers["WWW-Authenticate"] = error.challenge;
    return { status: error.status, headers, jsonBody: armErrorBody(error) };
  }
  return {
    status: 500,
    jsonBody: {
      error: { code: "InternalServerError", message: "The server failed to process the request." },
    },
  };
}

/** The error body every failing route answers with, described for the API document. */
export const armErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    target: z.string().optional(),
    details: z
      .array(z.object({ code: z.string(), message: z.string(), target: z.string().optional() }))
      .optional(),
  }),
});
