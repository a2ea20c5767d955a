import type { HttpRequest } from "@azure/functions";
import { InvalidRequestContent } from "../common/errors";
import { InvalidContinuationToken, type Page, type PageRequest } from "../common/page";
import type { AppConfig } from "../config";
import { publicRequestUrl } from "./public-url";

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface ListBody<T> {
  value: T[];
  nextLink?: string;
}

export function readPageRequest(request: HttpRequest): PageRequest {
  const top = request.query.get("$top");
  let pageSize = DEFAULT_PAGE_SIZE;
  if (top !== null) {
    if (!/^\d{1,7}$/.test(top) || Number(top) < 1 || Number(top) > MAX_PAGE_SIZE) {
      throw new InvalidRequestContent(`$top must be an integer from 1 to ${MAX_PAGE_SIZE}.`, "$top");
    }
    pageSize = Number(top);
  }
  const skipToken = request.query.get("$skipToken");
  return { pageSize, continuation: skipToken === null ? undefined : decodeSkipToken(skipToken) };
}

/** The store's continuation token travels base64url-encoded so it survives any URL handling. */
function decodeSkipToken(skipToken: string): string {
  const decoded = Buffer.from(skipToken, "base64url").toString("utf8");
  if (!/^[A-Za-z0-9_-]+$/.test(skipToken) || decoded.length === 0 || !isJson(decoded)) {
    throw new InvalidContinuationToken();
  }
  return decoded;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

type LinkConfig = Pick<AppConfig, "PUBLIC_BASE_URL">;

/**
 * The link to the next page: the request's own path and query under the public base URL (never
 * the request's Host), with the new token, minus any key in `code`.
 */
export function nextLink(request: HttpRequest, continuation: string, config: LinkConfig): string {
  const url = publicRequestUrl(request, config);
  url.searchParams.delete("code");
  url.searchParams.set("$skipToken", Buffer.from(continuation, "utf8").toString("base64url"));
  return url.toString();
}

export function listBody<T>(request: HttpRequest, page: Page<T>, config: LinkConfig): ListBody<T> {
  return page.continuation === undefined
    ? { value: page.items }
    : { value: page.items, nextLink: nextLink(request, page.continuation, config) };
}
