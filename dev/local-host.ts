import { timingSafeEqual } from "node:crypto";
import * as http from "node:http";
import type { FunctionApp } from "./functions-worker";
import type { HostLogger } from "./host-logger";
import { RouteMatcher } from "./route-matcher";

/**
 * The HTTP side of a stand-in for the Functions host, around a package loaded as the Node.js worker
 * loads it (dev/functions-worker.ts): it routes requests to the registered HTTP functions by their
 * route templates, methods and host.json's route prefix, and checks keys by each function's
 * authLevel before invoking it. What it answers itself it answers as the Functions host does, with
 * no body: 400 for a target it cannot parse, 404 when no function takes the path and method, 401
 * for a missing or wrong key, 413 past the host's body limit. Local-only.
 */

export interface LocalKeys {
  functionKey: string;
  masterKey: string;
}

/** The Functions host's request body limit (FUNCTIONS_REQUEST_BODY_SIZE_LIMIT's default, 100 MB). */
const HOST_BODY_LIMIT_BYTES = 104_857_600;
const ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** The registered HTTP functions, as their trigger bindings describe them (a route defaults to the name). */
function httpFunctions(app: FunctionApp) {
  return [...app.functions.values()].flatMap(({ metadata }) => {
    const trigger = Object.values(metadata.bindings).find((binding) => binding.type === "httpTrigger");
    if (!trigger) return [];
    const methods = (trigger.methods ?? ALL_METHODS).map((method) => method.toUpperCase());
    return [
      { name: metadata.name, route: trigger.route ?? metadata.name, methods, authLevel: trigger.authLevel },
    ];
  });
}

/**
 * The key as the Functions host reads it: `x-functions-key`, else the first `code` of the query,
 * its name in any letter case (ASP.NET's query is case-insensitive; the host takes values.First()).
 */
function givenKey(request: http.IncomingMessage, url: URL): string | undefined {
  const header = request.headers["x-functions-key"];
  if (typeof header === "string") return header;
  return [...url.searchParams].find(([name]) => name.toLowerCase() === "code")?.[1];
}

/** Function-level routes take the function key or the master key, admin-level only the master key. */
function isAuthorized(authLevel = "function", key: string | undefined, keys: LocalKeys): boolean {
  const level = authLevel.toLowerCase();
  const given = Buffer.from(key ?? "");
  const is = (secret: string) =>
    given.length === Buffer.byteLength(secret) && timingSafeEqual(given, Buffer.from(secret));
  if (level === "anonymous") return true;
  return given.length > 0 && (is(keys.masterKey) || (level === "function" && is(keys.functionKey)));
}

/** The body, or undefined once it passes the host's limit (declared or streamed). */
async function readBody(request: http.IncomingMessage): Promise<Buffer | undefined> {
  if (Number(request.headers["content-length"] ?? 0) > HOST_BODY_LIMIT_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > HOST_BODY_LIMIT_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The received headers as the host passes them: one string each (Node joins repeats with ", "). */
function headerRecord(request: http.IncomingMessage): Record<string, string> {
  const entries = Object.entries(request.headers).filter(([, value]) => value !== undefined);
  return Object.fromEntries(entries.map(([name, value]) => [name, [value].flat().join(", ")]));
}

function answerBare(response: http.ServerResponse, status: number): void {
  response.writeHead(status, { "Content-Length": "0" }).end();
}

/** A server (not yet listening) that serves the app's HTTP functions. */
export function createHttpHost(app: FunctionApp, keys: LocalKeys, routePrefix: string, log: HostLogger) {
  const matcher = new RouteMatcher(httpFunctions(app), routePrefix);
  let origin = "http://127.0.0.1";

  async function handle(incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> {
    // Appended, not resolved: `//other.example/x` stays a path on this host. URL parsing removes
    // dot segments, percent-encoded ones too, as Kestrel's path normalization does before routing;
    // it would also read a backslash as a slash, which Kestrel does not, hence the escape.
    const target = `${origin}${(incoming.url ?? "").replaceAll("\\", "%5C")}`;
    if (!incoming.url?.startsWith("/") || !URL.canParse(target)) return answerBare(outgoing, 400);
    const url = new URL(target);
    const method = incoming.method ?? "GET";
    const result = matcher.match(method, url.pathname);
    if (result.kind === "not-found") return answerBare(outgoing, 404);
    const { route, params } = result.match;
    if (!isAuthorized(route.authLevel, givenKey(incoming, url), keys)) return answerBare(outgoing, 401);
    const body = await readBody(incoming);
    if (!body) return answerBare(outgoing.setHeader("Connection", "close"), 413);
    const answer = await app.invokeHttp(route.name, {
      method,
      url: url.href,
      headers: headerRecord(incoming),
      params,
      ...(body.length > 0 && { body }),
    });
    outgoing.writeHead(answer.status, {
      ...answer.headers,
      "Content-Length": String(answer.bytes.byteLength),
    });
    outgoing.end(answer.status === 204 || answer.status === 304 ? undefined : answer.bytes);
  }

  const server = http.createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      // The worker's failed invocation: the host answers 500 with no body. The path only: a query
      // may carry a key (`code`).
      const path = (incoming.url ?? "/").split("?", 1)[0];
      log("error", "host", `Request ${incoming.method} ${path} failed: ${(error as Error).message}`);
      if (!outgoing.headersSent) answerBare(outgoing, 500);
      else outgoing.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  // Node hands CONNECT to a 'connect' listener (and drops it without one): no function takes it.
  server.on("connect", (_request, socket) =>
    socket.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"),
  );
  server.on("listening", () => {
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  return server;
}
