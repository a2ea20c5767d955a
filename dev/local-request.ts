import { HttpRequest, type HttpRequestInit } from "@azure/functions";

/** Any method Fetch accepts: the stand-in for one it refuses. */
const STAND_IN_METHOD = "OPTIONS";

/**
 * An HttpRequest reporting the method as received. HttpRequest wraps a Fetch Request, which
 * refuses CONNECT, TRACE and TRACK (TypeError), upper-cases some others (`get` becomes GET) and
 * warns about `patch`; the local host still answers those requests (405), so for them, and for
 * any method not in upper case, the Fetch object is built with a stand-in method. Such requests
 * reach only the host's own error handlers, never a route's (routes match upper-case methods), and
 * carry no body. GET and HEAD bodies are dropped here, as @azure/functions would drop them (with a
 * warning for each request): no handler of a GET or HEAD reads a body.
 */
export function requestAsReceived(method: string, init: Omit<HttpRequestInit, "method">): HttpRequest {
  const withoutBody = { ...init, body: undefined };
  let request: HttpRequest;
  try {
    if (method !== method.toUpperCase()) throw new TypeError("not an upper-case method");
    request = new HttpRequest(
      method === "GET" || method === "HEAD" ? { ...withoutBody, method } : { ...init, method },
    );
  } catch {
    request = new HttpRequest({ ...withoutBody, method: STAND_IN_METHOD });
  }
  if (request.method !== method)
    Object.defineProperty(request, "method", { value: method, enumerable: true });
  return request;
}
