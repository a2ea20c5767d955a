import { randomUUID } from "node:crypto";
import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { describeError } from "../common/describe-error";
import { redactSecrets } from "../common/redact";
import type { Services } from "../services";
import { errorResponse } from "./errors";
import type { RouteHandler } from "./route";

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function correlationId(request: HttpRequest): string {
  const given = request.headers.get("x-ms-correlation-request-id");
  return given !== null && CORRELATION_ID.test(given) ? given : randomUUID();
}

/** The failure on one line (code and message, secrets masked), then its stack, for the log. */
function describeFailure(error: unknown): string {
  const stack = error instanceof Error && error.stack ? `\n${redactSecrets(error.stack)}` : "";
  return `${describeError(error)}${stack}`;
}

/**
 * What every route shares: request and correlation ids, one mapping of errors to ARM-shaped
 * responses, and one log line a request (path only: the query may hold a key in `code`).
 */
export function withHttpConventions(handler: RouteHandler, services: () => Services): HttpHandler {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const started = Date.now();
    const requestId = randomUUID();
    const correlation = correlationId(request);
    let response: HttpResponseInit;
    try {
      response = await handler(request, context, services());
    } catch (error) {
      response = errorResponse(error);
      if ((response.status ?? 500) >= 500)
        context.error(`request ${requestId} failed: ${describeFailure(error)}`);
    }
    const headers = new Headers(response.headers as ConstructorParameters<typeof Headers>[0]);
    headers.set("x-ms-request-id", requestId);
    headers.set("x-ms-correlation-request-id", correlation);
    if (response.jsonBody !== undefined) headers.set("Content-Type", "application/json; charset=utf-8");
    const path = new URL(request.url).pathname;
    context.log(
      `${request.method} ${path} -> ${response.status ?? 200} in ${Date.now() - started} ms (request ${requestId}, correlation ${correlation})`,
    );
    return { ...response, headers: Object.fromEntries(headers.entries()) };
  };
}
