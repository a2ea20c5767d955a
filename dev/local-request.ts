import { HttpRequest, type HttpRequestInit } from "@azure/functions";

/** Any method Fetch accepts: the stand-in for one it refuses. */
const STAND_IN_METHOD = "OPTIONS";

/**
 * An HttpRequest reporting the method as received. HttpRequest wraps a Fetch Request, which
 * refuses CONNECT, TRACE and TRACK (TypeError) and upper-cases some others (`get` becomes GET);
 * the local host still answers those requests (405), so for them the Fetch object is built with
 * a stand-in method. Such requests reach only the host's own error handlers, never a route's, and
 * carry no body.
 */
export function requestAsReceived(method: string, init: Omit<HttpRequestInit, "method">): HttpRequest {
  let request: HttpRequest;
  try {
    request = new HttpRequest({ ...init, method });
  } catch {
    request = new HttpRequest({ ...init, method: STAND_IN_METHOD, body: undefined });
  }
  if (request.method !== method)
    Object.defineProperty(request, "method", { value: method, enumerable: true });
  return request;
}
