/**
 * The ids a caller may send to trace a request (ARM's x-ms-correlation-request-id and
 * x-ms-client-request-id): echoed only when they are short tokens of these characters, so a
 * response or a log line never carries text the caller chose beyond an id. The API description
 * states the same pattern.
 */
export const REQUEST_ID_PATTERN = "^[A-Za-z0-9._:-]{1,128}$";

const REQUEST_ID = new RegExp(REQUEST_ID_PATTERN);

/** The id as sent when it is one, else undefined. */
export function requestIdFrom(given: string | null | undefined): string | undefined {
  return typeof given === "string" && REQUEST_ID.test(given) ? given : undefined;
}
