import type { HttpRequest } from "@azure/functions";
import { InvalidRequestContent, PayloadTooLarge, UnsupportedMediaType } from "../common/errors";
import { describePointer, type JsonRefusal, parseStrictJson } from "../common/strict-json";

export const MAX_BODY_BYTES = 1024 * 1024;

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

export function isJsonMediaType(contentType: string | null): boolean {
  const mediaType = contentType?.split(";")[0]?.trim() ?? "";
  return JSON_MEDIA_TYPE.test(mediaType);
}

export function payloadTooLarge(): PayloadTooLarge {
  return new PayloadTooLarge(`The request body exceeds the limit of ${MAX_BODY_BYTES} bytes.`);
}

/**
 * Reads a write request's JSON body: 413 over 1 MiB, 415 for a non-JSON content type, 400 when
 * empty, not JSON, nested too deep, or repeating a member name (I-JSON, RFC 7493).
 */
export async function readJsonBody(request: HttpRequest): Promise<unknown> {
  return parseJsonBytes(request, await readBodyBytes(request));
}

/** As readJsonBody, but an empty body (with any or no Content-Type) is undefined rather than a 400. */
export async function readOptionalJsonBody(request: HttpRequest): Promise<unknown> {
  const bytes = await readBodyBytes(request);
  return bytes.byteLength === 0 ? undefined : parseJsonBytes(request, bytes);
}

async function readBodyBytes(request: HttpRequest): Promise<Buffer> {
  const declaredLength = Number(request.headers.get("content-length") ?? "0");
  if (declaredLength > MAX_BODY_BYTES) throw payloadTooLarge();
  const bytes = Buffer.from(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw payloadTooLarge();
  return bytes;
}

function parseJsonBytes(request: HttpRequest, bytes: Buffer): unknown {
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    throw new UnsupportedMediaType(
      "The request body must be JSON: send Content-Type: application/json.",
      "Content-Type",
    );
  }
  if (bytes.byteLength === 0) throw new InvalidRequestContent("The request body is required.");
  const result = parseStrictJson(bytes.toString("utf8"));
  if (!result.ok) throw refusalError(result.refusal);
  return result.value;
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
  }
}

/** As readJsonBody, and the body must be a JSON object. */
export async function readJsonObjectBody(request: HttpRequest): Promise<Record<string, unknown>> {
  const parsed = await readJsonBody(request);
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new InvalidRequestContent("The request body must be a JSON object.");
  }
  return parsed as Record<string, unknown>;
}
