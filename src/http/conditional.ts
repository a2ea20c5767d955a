import type { HttpRequest } from "@azure/functions";
import { normalizeEtag, type Preconditions } from "../shared/preconditions";

function parseList(header: string | null): string[] | undefined {
  if (header === null) return undefined;
  return header
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

export function readPreconditions(request: HttpRequest): Preconditions {
  const ifMatch = parseList(request.headers.get("if-match"));
  const ifNoneMatch = parseList(request.headers.get("if-none-match"));
  return { ...(ifMatch && { ifMatch }), ...(ifNoneMatch && { ifNoneMatch }) };
}

/** The ETag header value for a stored version: always a quoted strong tag. */
export function formatEtag(storeEtag: string): string {
  return `"${normalizeEtag(storeEtag)}"`;
}
