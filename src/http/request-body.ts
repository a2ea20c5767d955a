import type { HttpRequest } from "@azure/functions";
import { InvalidRequestContent, PayloadTooLarge, UnsupportedMediaType } from "../common/errors";
import { describeLocation, describePointer, type JsonRefusal, parseStrictJson } from "../common/strict-json";

export const MAX_BODY_BYTES = 1024 * 1024;

/** The media types a body may be sent as, in lower case, parameters aside. */
export type MediaTypes = readonly string[];

/** A resource write (PUT; and role assignments, redelivery): plain JSON only. */
export const JSON_ONLY: MediaTypes = ["application/json"];

/**
 * A PATCH: plain JSON, or a JSON merge patch (RFC 7396), which is what a PATCH of these bodies
 * is (fields given replace, `null` removes). JSON Patch (RFC 6902) is a list of operations: 415.
 */
export const PATCH_MEDIA_TYPES: MediaTypes = ["application/json", "application/merge-patch+json"];

/** The media type of a Content-Type header, in lower case, without parameters ("" when absent). */
export function mediaTypeOf(contentType: string | null): string {
  return (contentType?.split(";")[0] ?? "").trim().toLowerCase();
}

/** Bytes that are not UTF-8 are refused, never replaced: content is stored exactly as sent. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function payloadTooLarge(): PayloadTooLarge {
  return new PayloadTooLarge(`The request body exceeds the limit of ${MAX_BODY_BYTES} bytes.`);
}

/**
 * Reads a write request's JSON body: 413 over 1 MiB, 415 for a content type not in `accepted`,
 * 400 when empty, not UTF-8, not JSON, nested too deep, or against I-JSON (RFC 7493): a repeated
 * member name, a lone surrogate in a string, a number a double cannot hold.
 */
export async function readJsonBody(request: HttpRequest, accepted: MediaTypes): Promise<unknown> {
  return parseJsonBytes(request, await readBodyBytes(request), accepted);
}

/** As readJsonBody, but an empty body (with any or no Content-Type) is undefined rather than a 400. */
export async function readOptionalJsonBody(request: HttpRequest, accepted: MediaTypes): Promise<unknown> {
  const bytes = await readBodyBytes(request);
  return bytes.byteLength === 0 ? undefined : parseJsonBytes(request, bytes, accepted);
}

async function readBodyBytes(request: HttpRequest): Promise<Buffer> {
  const declaredLength = Number(request.headers.get("content-length") ?? "0");
  if (declaredLength > MAX_BODY_BYTES) throw payloadTooLarge();
  const bytes = Buffer.from(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
  return bytes;
}

function parseJsonBytes(request: HttpRequest, bytes: Buffer, accepted: MediaTypes): unknown {
  if (!accepted.includes(mediaTypeOf(request.headers.get("content-type")))) {
    throw new UnsupportedMediaType(
      `The request body must be sent with Content-Type: ${accepted.join(" or ")}.`,
      "Content-Type",
    );
  }
  if (bytes.byteLength === 0) throw new InvalidRequestContent("The request body is required.");
  const result = parseStrictJson(decodeUtf8(bytes));
  if (!result.ok) throw refusalError(result.refusal);
  return result.value;
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new InvalidRequestContent("The request body is not valid UTF-8 (RFC 8259 §8.1).");
  }
}

function refusalError(refusal: JsonRefusal): InvalidRequestContent {
  switch (refusal.reason) {
    case "syntax":
      return new InvalidRequestContent(`The request body is not valid JSON: ${refusal.message}.`);
    case "too-deep":
      return new InvalidRequestContent(`The request body nests deeper than ${refusal.maxDepth} levels.`);
    case "duplicate-member": {
      const pointer = describePointer(refusal.pointer);
      return new InvalidRequestContent(
        `The request body has the member '${pointer}' more than once; member names must be unique (RFC 7493).`,
        pointer,
      );
    }
    case "lone-surrogate":
      return new InvalidRequestContent(
        `The request body has a lone surrogate (an unpaired \\uD800-\\uDFFF) in the string at ${describeLocation(refusal.pointer)}: UTF-8 cannot carry it, so it could not be stored or sent as given (RFC 7493).`,
        refusal.pointer || undefined,
      );
    case "number-out-of-range":
      return new InvalidRequestContent(
        `The request body has a number at ${describeLocation(refusal.pointer)} beyond the range of a double: it would read as Infinity, which JSON cannot carry (RFC 7493).`,
        refusal.pointer || undefined,
      );
  }
}

/** As readJsonBody, and the body must be a JSON object. */
export async function readJsonObjectBody(
  request: HttpRequest,
  accepted: MediaTypes,
): Promise<Record<string, unknown>> {
  const parsed = await readJsonBody(request, accepted);
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new InvalidRequestContent("The request body must be a JSON object.");
  }
  return parsed as Record<string, unknown>;
}
