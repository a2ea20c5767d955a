import { z } from "zod";
import { MAX_BODY_BYTES } from "../../src/http/request-body";
import type { LogEntry } from "../support/test-host";
import { describeSent, type Exchange } from "./wire";

/** The invariants every answer must keep, whatever was sent. Each returns what it found wrong. */

const pascalCase = z.string().regex(/^[A-Z][A-Za-z0-9]*$/, "PascalCase");

/** docs/api.md: the error body, and nothing else in it. */
export const errorBodySchema = z.strictObject({
  error: z.strictObject({
    code: pascalCase,
    message: z.string().min(1),
    target: z.string().optional(),
    details: z
      .array(z.strictObject({ code: pascalCase, message: z.string().min(1), target: z.string().optional() }))
      .optional(),
  }),
});

/** docs/api.md's table: the codes each error status may carry. */
const CODES_BY_STATUS: Record<number, readonly string[]> = {
  400: ["InvalidRequestContent", "InvalidApiVersionParameter", "EventIdTooLong", "InvalidFilter"],
  401: ["Unauthorized", "AuthenticationFailed", "InvalidAuthenticationToken"],
  403: ["AuthorizationFailed"],
  404: ["ResourceNotFound"],
  405: ["MethodNotAllowed"],
  409: [
    "QuotaExceeded",
    "DeadLettersUnavailable",
    "EndpointInUse",
    "RoleAssignmentExists",
    "RoleAssignmentUpdateNotPermitted",
  ],
  412: ["PreconditionFailed"],
  413: ["PayloadTooLarge"],
  415: ["UnsupportedMediaType"],
  429: ["TooManyRequests"],
};

/** What the host answers itself: a request it cannot parse, no route, no key, a body over its limit. */
const HOST_ANSWERS = new Set([400, 401, 404, 413]);

export interface Forbidden {
  /** Texts that must never appear in an answer or a log line (secret markers, keys). */
  texts: readonly string[];
}

/** Everything wrong with one exchange; empty when it kept every invariant. */
export function violations(exchange: Exchange, forbidden: Forbidden): string[] {
  const { answer, request } = exchange;
  // A body over the limit may be cut off with the connection (wire.ts: closedEarly); any other
  // request, and any other way of ending, must get an answer.
  if (!answer && exchange.closedEarly && exchange.sent.bodyBytes > MAX_BODY_BYTES) return [];
  if (!answer) return [`no answer: ${exchange.failure ?? "unknown failure"}`];
  const found: string[] = [];
  const { status } = answer;
  // The Functions host's own answers, before any function: a status and no body, as in Azure.
  if (HOST_ANSWERS.has(status) && answer.body === "" && answer.headers["content-type"] === undefined) {
    return [...leaks(`the host's ${status}`, answerText(exchange), forbidden), ...expectedStatus(exchange)];
  }
  if (status >= 500) found.push(`answered ${status}: ${answer.body.slice(0, 300)}`);
  if (!answer.headers["x-ms-request-id"]) found.push(`${status} without x-ms-request-id`);
  found.push(...leaks(`the ${status} answer`, answerText(exchange), forbidden));
  if (status >= 400 && request.method !== "HEAD") found.push(...errorShape(exchange));
  if (status >= 200 && status < 300) found.push(...successShape(exchange));
  found.push(...expectedStatus(exchange));
  return found;
}

function answerText(exchange: Exchange): string {
  const headers = Object.entries(exchange.answer?.headers ?? {})
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join("\n");
  return `${headers}\n\n${exchange.answer?.body ?? ""}`;
}

export function leaks(where: string, text: string, forbidden: Forbidden): string[] {
  return forbidden.texts
    .filter((secret) => text.includes(secret))
    .map((secret) => `${where} contains '${secret}'`);
}

function errorShape({ answer }: Exchange): string[] {
  if (!answer) return [];
  if (!/^application\/json/.test(String(answer.headers["content-type"]))) {
    return [`${answer.status} with content-type ${String(answer.headers["content-type"])}`];
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return [`${answer.status} body is not JSON: ${answer.body.slice(0, 200)}`];
  }
  const parsed = errorBodySchema.safeParse(body);
  if (!parsed.success) return [`${answer.status} error body off contract: ${z.prettifyError(parsed.error)}`];
  const codes = CODES_BY_STATUS[answer.status];
  return codes === undefined || codes.includes(parsed.data.error.code)
    ? []
    : [`${answer.status} with code ${parsed.data.error.code}; the contract has ${codes.join(" or ")}`];
}

/** 2xx: a status the route documents, a body its documented schema accepts, an ETag on single resources. */
function successShape({ answer, request }: Exchange): string[] {
  const route = request.intent.route;
  if (!answer || !route || !request.intent.routable) return [];
  const documented = route.doc.responses.find((response) => response.status === answer.status);
  if (!documented) return [`${route.name} answered ${answer.status}, which it does not document`];
  const found: string[] = [];
  if (documented.schema) {
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [`${route.name} ${answer.status} body is not JSON: ${answer.body.slice(0, 200)}`];
    }
    const parsed = documented.schema.safeParse(body);
    if (!parsed.success)
      found.push(`${route.name} ${answer.status} body off its schema: ${z.prettifyError(parsed.error)}`);
  }
  const singleResource = /-(get|put|patch)$/.test(route.name);
  if (singleResource && !answer.headers.etag) found.push(`${route.name} ${answer.status} without ETag`);
  return found;
}

/**
 * What the host must answer before any handler runs (405 for a method the path does not take, 401
 * for a bad key, 413 for a body over 1 MiB), and that any other status is one the route documents.
 */
function expectedStatus({ answer, request, sent }: Exchange): string[] {
  const { intent } = request;
  if (!answer || !intent.routable) return [];
  const expect = (status: number, why: string) =>
    answer.status === status ? [] : [`expected ${status} (${why}), got ${answer.status}`];
  if (intent.methodNotAllowed) return expect(405, "method not served on this path");
  const route = intent.route;
  if (!route) return [];
  if (!intent.keyValid) return expect(401, `bad key for a ${route.authLevel} route`);
  // A body over the limit is never read: 413, or another refusal the app reached first (a bad path,
  // a bad query). A GET's or HEAD's body the worker discards; a DELETE's no route reads.
  if (sent.bodyBytes > MAX_BODY_BYTES && !["GET", "HEAD", "DELETE"].includes(request.method))
    return answer.status >= 400 && answer.status < 500
      ? []
      : [`a body over 1 MiB was answered ${answer.status}, not refused`];
  if (answer.status === 401) return [`401 with a valid key on ${route.name}`];
  const documented = new Set([
    ...route.doc.responses.map((response) => response.status),
    ...route.doc.errors,
  ]);
  return documented.has(answer.status) || answer.status >= 500
    ? []
    : [`${route.name} answered ${answer.status}, which it does not document (${[...documented].join(", ")})`];
}

/** The host's log lines must not carry a secret either. */
export function logLeaks(logs: readonly LogEntry[], forbidden: Forbidden): string[] {
  return logs.flatMap((entry) =>
    leaks(`log line '${entry.message.slice(0, 160)}'`, entry.message, forbidden),
  );
}

/** A failure report: the request as sent, what came back, and what the host logged meanwhile. */
export function report(exchange: Exchange, found: string[], logs: readonly LogEntry[]): string {
  const errors = logs.filter((entry) => entry.level === "error").map((entry) => entry.message.slice(0, 1200));
  return [
    `request: ${describeSent(exchange)}`,
    `answer: ${exchange.answer ? `${exchange.answer.status} ${exchange.answer.body.slice(0, 400)}` : exchange.failure}`,
    ...found.map((problem) => `violation: ${problem}`),
    ...errors.map((line) => `host error log: ${line}`),
  ].join("\n");
}
