import type { HttpRequest } from "@azure/functions";
import type { Preconditions } from "../common/preconditions";

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
