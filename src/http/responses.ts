import type { HttpResponseInit } from "@azure/functions";
import { formatEtag } from "../common/preconditions";

export function jsonResponse(status: number, body: unknown, etag?: string): HttpResponseInit {
  return {
    status,
    jsonBody: body,
    headers: etag === undefined ? {} : { ETag: formatEtag(etag) },
  };
}

export function notModified(etag: string): HttpResponseInit {
  return { status: 304, headers: { ETag: formatEtag(etag) } };
}

export function noContent(): HttpResponseInit {
  return { status: 204 };
}

/** 200 with no body, as ARM answers a delete that removed something. */
export function deleted(): HttpResponseInit {
  return { status: 200 };
}
