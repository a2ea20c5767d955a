import type { HttpRequest } from "@azure/functions";
import type { AppConfig } from "../config";

const HOST_NAME = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+)(:\d+)?$/i;

/**
 * The base of every link the service hands out (nextLink, the OpenAPI server), without a trailing
 * slash. Never the request's Host or X-Forwarded-Host: a caller could point links elsewhere. In
 * order: PUBLIC_BASE_URL; the host name Azure App Service sets in WEBSITE_HOSTNAME (a platform
 * fact, not a setting anyone writes: https, or http on loopback as Core Tools sets it); else the
 * request URL's origin, which only the local host (dev/local-host.ts) gets to, and which builds
 * request URLs from the address it listens on.
 */
export function publicBaseUrl(
  request: HttpRequest,
  config: Pick<AppConfig, "PUBLIC_BASE_URL">,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (config.PUBLIC_BASE_URL !== undefined) return new URL(config.PUBLIC_BASE_URL).href.replace(/\/+$/, "");
  const platformHost = env.WEBSITE_HOSTNAME;
  if (platformHost !== undefined && HOST_NAME.test(platformHost)) {
    return `${LOOPBACK.test(platformHost) ? "http" : "https"}://${platformHost}`;
  }
  return new URL(request.url).origin;
}

/** The request's own path and query under the public base: where a client reaches it again. */
export function publicRequestUrl(request: HttpRequest, config: Pick<AppConfig, "PUBLIC_BASE_URL">): URL {
  const requested = new URL(request.url);
  const url = new URL(publicBaseUrl(request, config));
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${requested.pathname}`;
  url.search = requested.search;
  return url;
}
