import { createHash } from "node:crypto";
import type { HttpRequest } from "@azure/functions";
import { InvalidRequestContent } from "../common/errors";
import { nameKey } from "../common/name-key";
import { InvalidContinuationToken, type Page, type PageRequest } from "../common/page";
import type { AppConfig } from "../config";
import { publicRequestUrl } from "./public-url";
import { deleteQueryNames, queryValue } from "./query";

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface ListBody<T> {
  value: T[];
  nextLink?: string;
}

/**
 * Which list a page belongs to: the route and its path parameters, names keyed as ARM compares them
 * (so `/Subscriptions/A/…` and `/subscriptions/a/…` are one list). A skip token carries it, so that
 * one list's token is refused by another instead of answering an empty page.
 */
export function listIdentity(route: string, params: Readonly<Record<string, string>>): string {
  const named = Object.keys(params)
    .sort()
    .map((name) => [name, nameKey(params[name] ?? "")]);
  return createHash("sha256")
    .update(JSON.stringify([route, named]))
    .digest("base64url")
    .slice(0, 22);
}

/** The query options every list takes (query.ts refuses any other `$` name a list has not added). */
export const PAGING_OPTIONS: readonly string[] = ["$top", "$skipToken"];

/** $top and $skipToken, their names in any letter case (as ARM reads them); `list` is listIdentity's. */
export function readPageRequest(request: HttpRequest, list: string): PageRequest {
  const top = queryValue(request, "$top");
  let pageSize = DEFAULT_PAGE_SIZE;
  if (top !== null) {
    if (!/^\d{1,7}$/.test(top) || Number(top) < 1 || Number(top) > MAX_PAGE_SIZE) {
      throw new InvalidRequestContent(`$top must be an integer from 1 to ${MAX_PAGE_SIZE}.`, "$top");
    }
    pageSize = Number(top);
  }
  const skipToken = queryValue(request, "$skipToken");
  return { pageSize, continuation: skipToken === null ? undefined : decodeSkipToken(skipToken, list) };
}

/** What a skip token carries: the list it was issued for and the store's continuation. */
interface SkipToken {
  l: string;
  c: string;
}

/** The token, base64url-encoded JSON so that it survives any URL handling. */
function encodeSkipToken(continuation: string, list: string): string {
  const token: SkipToken = { l: list, c: continuation };
  return Buffer.from(JSON.stringify(token), "utf8").toString("base64url");
}

function decodeSkipToken(skipToken: string, list: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(skipToken)) throw new InvalidContinuationToken();
  const token = parseJson(Buffer.from(skipToken, "base64url").toString("utf8")) as Partial<SkipToken>;
  if (typeof token?.l !== "string" || typeof token.c !== "string" || parseJson(token.c) === undefined) {
    throw new InvalidContinuationToken();
  }
  if (token.l !== list) {
    throw new InvalidRequestContent(
      "$skipToken was issued for another list: follow the nextLink of this list's pages.",
      "$skipToken",
    );
  }
  return token.c;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

type LinkConfig = Pick<AppConfig, "PUBLIC_BASE_URL">;

/**
 * The link to the next page: the request's own path and query under the public base URL (never
 * the request's Host), with the new token in place of any other spelling of $skipToken, minus any
 * key in `code` (in any letter case: the Functions host reads it so).
 */
export function nextLink(
  request: HttpRequest,
  continuation: string,
  config: LinkConfig,
  list: string,
): string {
  const url = publicRequestUrl(request, config);
  deleteQueryNames(url, ["code", "$skipToken"]);
  url.searchParams.set("$skipToken", encodeSkipToken(continuation, list));
  return url.toString();
}

export function listBody<T>(
  request: HttpRequest,
  page: Page<T>,
  config: LinkConfig,
  list: string,
): ListBody<T> {
  return page.continuation === undefined
    ? { value: page.items }
    : { value: page.items, nextLink: nextLink(request, page.continuation, config, list) };
}
