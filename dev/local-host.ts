import { randomUUID } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { type HttpResponseInit, InvocationContext, type LogHandler } from "@azure/functions";
import {
  InvalidRequestContent,
  type PayloadTooLarge,
  ResourceNotFound,
  Unauthorized,
} from "../src/common/errors";
import { hostAuthLevel } from "../src/http/caller";
import { headerRecord as responseHeaders } from "../src/http/header-record";
import { methodNotAllowedHandler } from "../src/http/method-not-allowed";
import { sameQueryName } from "../src/http/query";
import { MAX_BODY_BYTES, payloadTooLarge } from "../src/http/request-body";
import type { RouteDefinition, RouteHandler } from "../src/http/route";
import { withHttpConventions } from "../src/http/with-conventions";
import type { Services } from "../src/services";
import type { QueueFunctionDefinition } from "../src/triggers/queue-function";
import type { HostSettings } from "./host-json";
import { consoleLogger, type HostLogger } from "./host-logger";
import { isAuthorized, type LocalKeys } from "./key-check";
import { requestAsReceived } from "./local-request";
import type { QueueTrigger } from "./queue-trigger";
import { type RequestUrl, requestUrl, serializedOrigin } from "./request-url";
import { RouteMatcher } from "./route-matcher";
import { serveBareSocketRequests } from "./socket-requests";

export interface LocalHostOptions {
  routes: readonly RouteDefinition[];
  services: Services;
  keys: LocalKeys;
  routePrefix: string;
  /** Queue-triggered functions to poll for, with host.json's queue settings. */
  queues?: {
    functions: readonly QueueFunctionDefinition[];
    settings: HostSettings["queues"];
    /** How long a message stays locked while its handler runs (renewed); 60 s unless set. */
    lockSeconds?: number;
  };
  log?: HostLogger;
}

export interface LocalHost {
  /**
   * Resolves with the base URL once listening and the queue triggers have started; port 0 picks a
   * free port. Requests are served from the moment it listens (see startTriggersSoon).
   */
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

function failWith(error: Error): RouteHandler {
  return async () => {
    throw error;
  };
}

class BodyTooLarge extends Error {}

const PATH_SUSPECT = /[\\.]|\/\/|%2e/i;

/**
 * Why a request target's path names no resource, or undefined when it can: an empty segment (`//`)
 * or a dot segment, in any spelling (`.`, `..`, `%2e%2e`, `.%2E`), which URL parsing would fold into
 * another path, and a backslash, which it reads as a slash. A trailing slash is allowed, as the
 * Functions host allows it. Route parameters arrive decoded, so name rules refuse such names too.
 */
export function pathProblem(target: string): string | undefined {
  // Every problem below needs a backslash, "//", or a dot (as "." or %2e): most paths have none.
  if (!PATH_SUSPECT.test(target)) return undefined;
  const path = target.split(/[?#]/, 1)[0] ?? "";
  const segments = path.split("/").slice(1);
  if (path.includes("\\")) return "holds a backslash";
  if (segments.slice(0, -1).includes("")) return "has an empty segment (//)";
  if (segments.some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment)))
    return "has a '.' or '..' segment (also when percent-encoded, as %2E%2E)";
  return undefined;
}

/** What a request Node's parser refused was refused for, in words; the header named, never its value. */
function parserRefusal(refusal: { code: string; header?: string }): InvalidRequestContent {
  const reason =
    refusal.code !== "HPE_INVALID_HEADER_TOKEN"
      ? `it is not valid HTTP/1.1 (${refusal.code})`
      : refusal.header !== undefined
        ? `the header ${refusal.header} holds a character a header value may not (a control character)`
        : "a header name holds a character a header name may not";
  return new InvalidRequestContent(`The request was refused before any route: ${reason}.`, refusal.header);
}

/** The local queue trigger polls with a connection string (Azurite's, under npm start). */
function storageConnectionString(config: Services["config"]): string {
  if (!config.AzureWebJobsStorage) {
    throw new Error("the local host's queue trigger needs AzureWebJobsStorage as a connection string");
  }
  return config.AzureWebJobsStorage;
}

const NO_BODY = Buffer.alloc(0);

/** See startTriggersSoon: long enough for a first request sent as the port opens to be taken first. */
const TRIGGERS_AFTER_LISTEN_MS = 100;
/** See startTriggersSoon: a first request that hangs does not keep the queues from being polled. */
const TRIGGERS_AT_THE_LATEST_MS = 2000;

/** Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3): nothing to wait for. */
function hasBody(request: http.IncomingMessage): boolean {
  const declared = request.headers["content-length"];
  return (declared !== undefined && declared !== "0") || request.headers["transfer-encoding"] !== undefined;
}

/** The body of a request that has one (hasBody: the caller asks first, and skips this for one without). */
async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  const declared = request.headers["content-length"];
  if (Number(declared ?? 0) > MAX_BODY_BYTES) throw new BodyTooLarge();
  // A declared length is what the parser lets through: no limit to watch while reading.
  if (declared !== undefined && request.headers["transfer-encoding"] === undefined)
    return readDeclared(request);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    // Stop buffering past the limit: the handler would answer 413 anyway.
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The whole body of a request whose length is declared, from its events (no async iterator a request). */
function readDeclared(request: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.once("end", () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    request.once("error", reject);
    request.once("close", () => {
      if (!request.complete) reject(new Error("the request closed before its body was complete"));
    });
  });
}

/**
 * The received headers as one record of strings. Node's parser joins a repeated header with ", "
 * already, all but Set-Cookie (an array): without one, its record is that record, used as it is
 * (nothing downstream changes it) instead of copied for each request.
 */
function headerRecord(request: http.IncomingMessage): Record<string, string> {
  const given = request.headers;
  if (given["set-cookie"] === undefined) return given as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const name in given) {
    const value = given[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function writeResponse(response: http.ServerResponse, init: HttpResponseInit): void {
  // Every response comes through withHttpConventions, whose headers are a record of lower-case
  // names already; any other form is listed as a Fetch Headers would list it.
  const given = init.headers;
  const headers =
    given === undefined || given instanceof Headers || Array.isArray(given) ? responseHeaders(given) : given;
  // Text is written as text (Node sends it with the head in one write), bytes without a copy.
  let body: string | Uint8Array | undefined;
  if (init.jsonBody !== undefined) body = JSON.stringify(init.jsonBody);
  else if (typeof init.body === "string" || init.body instanceof Uint8Array) body = init.body;
  else if (init.body !== undefined && init.body !== null) {
    throw new Error("the local host only serves string, byte and JSON bodies");
  }
  const status = init.status ?? 200;
  const sent = body !== undefined && status !== 204 && status !== 304 ? body : undefined;
  // One writeHead with the whole record: Node writes it out in one pass, where a setHeader per
  // header validates and stores each in a map of its own first. The names and their order are
  // what setHeader would send; headers set before (Connection on a 413) are merged by writeHead.
  // The record is this response's own (the conventions make it for it), so it takes the length.
  if (sent !== undefined)
    headers["Content-Length"] = String(typeof sent === "string" ? Buffer.byteLength(sent) : sent.byteLength);
  response.writeHead(status, headers);
  response.end(sent);
}

/**
 * The key in the query as the Functions host reads it: the first `code`, its name in any letter
 * case (ASP.NET's query is case-insensitive; AuthenticationLevelHandler takes values.First()).
 * A second, different `code` is the app's to refuse (src/http/caller.ts), as in Azure.
 */
function firstCode(url: RequestUrl): string | null {
  for (const [name, value] of url.searchParams) if (sameQueryName(name, "code")) return value;
  return null;
}

/**
 * A stand-in for the Functions host on one machine: it serves the route table through the real
 * HttpRequest / InvocationContext classes of @azure/functions, applies host.json's route prefix,
 * and checks keys as the host does before a handler runs. Local-only; never deployed.
 */
export function createLocalHost(options: LocalHostOptions): LocalHost {
  const matcher = new RouteMatcher(options.routes, options.routePrefix);
  const log = options.log ?? consoleLogger;
  const services = () => options.services;
  /** Each route's handler with the conventions, made once; the host's own error answers as they come. */
  const wrapped = new Map(
    options.routes.map((route) => [route.handler, withHttpConventions(route, services)]),
  );
  // The host's own answers (404, 405, 401, 413) admit no caller: they come before any handler.
  const conventional = (handler: RouteHandler) =>
    wrapped.get(handler) ?? withHttpConventions({ route: "", authLevel: "anonymous", handler }, services);
  /** Each function's log handler, made once: the invocation context's lines, as one message. */
  const logHandlers = new Map<string, LogHandler>();
  const logHandlerOf = (functionName: string): LogHandler => {
    let handler = logHandlers.get(functionName);
    if (handler === undefined) {
      handler = (level, ...args) =>
        log(level, functionName, args.length === 1 ? String(args[0]) : args.map(String).join(" "));
      logHandlers.set(functionName, handler);
    }
    return handler;
  };
  /** Where the host listens: request URLs, and so the links handlers build, are based on it. */
  let origin = "http://127.0.0.1";

  // Not async: it hands on the conventions' promise rather than wrap it in one more.
  function invoke(
    incoming: http.IncomingMessage,
    url: RequestUrl,
    functionName: string,
    handler: RouteHandler,
    params: Record<string, string>,
    body: Buffer | undefined,
  ): Promise<HttpResponseInit> {
    const request = requestAsReceived(incoming.method ?? "GET", {
      url: url.href,
      headers: headerRecord(incoming),
      query: url.search === "" ? {} : Object.fromEntries(url.searchParams.entries()),
      params,
      ...(body !== undefined && body.length > 0 && { body: { bytes: body } }),
    });
    const context = new InvocationContext({
      invocationId: randomUUID(),
      functionName,
      logHandler: logHandlerOf(functionName),
    });
    // withHttpConventions' handlers are async: the result is always a promise of a plain init.
    return conventional(handler)(request, context) as Promise<HttpResponseInit>;
  }

  async function handle(incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> {
    const target = incoming.url ?? "/";
    const problem = target.startsWith("/") ? pathProblem(target) : undefined;
    if (problem !== undefined) {
      const error = new InvalidRequestContent(`The request path ${problem}: name each resource plainly.`);
      const root = new URL(`${origin}/`);
      writeResponse(outgoing, await invoke(incoming, root, "host", failWith(error), {}, undefined));
      return;
    }
    const url = requestUrl(incoming, origin);
    if (!url) {
      const error = new InvalidRequestContent("The request target or the Host header is not valid.", "Host");
      writeResponse(
        outgoing,
        await invoke(incoming, new URL(`${origin}/`), "host", failWith(error), {}, undefined),
      );
      return;
    }
    const method = incoming.method ?? "GET";
    const result = matcher.match(method, url.pathname);
    if (result.kind === "not-found") {
      const error = new ResourceNotFound(`No route matches '${url.pathname}'.`);
      writeResponse(outgoing, await invoke(incoming, url, "host", failWith(error), {}, undefined));
      return;
    }
    if (result.kind === "method-not-allowed") {
      const handler = methodNotAllowedHandler(result.allowed);
      writeResponse(outgoing, await invoke(incoming, url, "host", handler, {}, undefined));
      return;
    }
    const { route, params } = result.match;
    const key = incoming.headers["x-functions-key"] ?? (url.search === "" ? null : firstCode(url));
    const authLevel = hostAuthLevel(route.authLevel, options.services.config.AUTH_MODE);
    if (!isAuthorized(authLevel, Array.isArray(key) ? (key[0] ?? null) : key, options.keys)) {
      const error = new Unauthorized(
        route.authLevel === "admin"
          ? "This operation needs the master key in x-functions-key."
          : "A valid function key is required in x-functions-key or ?code=.",
        "x-functions-key",
      );
      writeResponse(outgoing, await invoke(incoming, url, route.name, failWith(error), params, undefined));
      return;
    }
    let body: Buffer;
    try {
      // Not awaited without a body (most reads): one promise and one turn less.
      body = hasBody(incoming) ? await readBody(incoming) : NO_BODY;
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      outgoing.setHeader("Connection", "close");
      const tooLarge: PayloadTooLarge = payloadTooLarge();
      writeResponse(outgoing, await invoke(incoming, url, route.name, failWith(tooLarge), params, undefined));
      return;
    }
    writeResponse(outgoing, await invoke(incoming, url, route.name, route.handler, params, body));
  }

  function serve(incoming: http.IncomingMessage, outgoing: http.ServerResponse): void {
    const answered = handle(incoming, outgoing).catch((error: unknown) => {
      log("error", "host", `unhandled failure: ${(error as Error).message}`);
      if (!outgoing.headersSent) outgoing.statusCode = 500;
      outgoing.end();
    });
    firstRequestTaken?.(answered);
  }

  /** A request the parser refused: a 400 in the error shape, with the ids, as any answer. */
  function refuse(
    incoming: http.IncomingMessage,
    outgoing: http.ServerResponse,
    refusal: { code: string; header?: string },
  ): void {
    const url = requestUrl(incoming, origin) ?? new URL(`${origin}/`);
    // In an executor, so that a throw while invoking is a rejection, handled below as one.
    new Promise<HttpResponseInit>((resolve) =>
      resolve(invoke(incoming, url, "host", failWith(parserRefusal(refusal)), {}, undefined)),
    )
      .then((response) => writeResponse(outgoing, response))
      .catch((error: unknown) => {
        log("error", "host", `unhandled failure: ${(error as Error).message}`);
        outgoing.destroy();
      });
  }

  const server = http.createServer(serve);
  server.keepAliveTimeout = 5000;
  serveBareSocketRequests(server, serve, refuse);

  let triggers: QueueTrigger[] = [];
  /** Set while the triggers wait for the first request's answer (startTriggersSoon). */
  let firstRequestTaken: ((answered: Promise<void>) => void) | undefined;

  /**
   * The queue triggers start once the first request has been answered, or TRIGGERS_AFTER_LISTEN_MS
   * after listening if none has come by then (TRIGGERS_AT_THE_LATEST_MS if one is taking long). In
   * Azure the queue listener is the Functions host's own (.NET) and costs the Node worker nothing;
   * here it is this process's, and loading the queue SDK for it takes 60–90 ms of the one thread.
   * Started at once, it would hold up the first request, which a cold instance in Azure does not
   * make wait for it.
   */
  function startTriggersSoon(): Promise<void> {
    if (!options.queues) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer = setTimeout(resolve, TRIGGERS_AFTER_LISTEN_MS);
      firstRequestTaken = (answered) => {
        firstRequestTaken = undefined;
        clearTimeout(timer);
        timer = setTimeout(resolve, TRIGGERS_AT_THE_LATEST_MS);
        void answered.then(() => {
          clearTimeout(timer);
          // After the answer's own callbacks ('finish'), not in the same turn as its last write.
          setImmediate(resolve);
        });
      };
    }).then(() => {
      firstRequestTaken = undefined;
      return startTriggers();
    });
  }

  async function startTriggers(): Promise<void> {
    const queues = options.queues;
    if (!queues) return;
    const { startQueueTrigger } = await import("./queue-trigger");
    const { config } = options.services;
    for (const definition of queues.functions) {
      triggers.push(
        await startQueueTrigger({
          connectionString: storageConnectionString(config),
          queueName: definition.queueName(config),
          functionName: definition.name,
          handler: (message, context) => definition.handler(message, context, options.services),
          settings: queues.settings,
          ...(queues.lockSeconds !== undefined && { lockSeconds: queues.lockSeconds }),
          log,
        }),
      );
    }
  }

  return {
    async listen(port, host = "127.0.0.1") {
      const url = await new Promise<string>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          origin = serializedOrigin(`http://${host.includes(":") ? `[${host}]` : host}:${address.port}`);
          resolve(origin);
        });
      });
      await startTriggersSoon();
      return url;
    },
    async close() {
      // Triggers first: running handlers finish and settle their messages before anything closes.
      await Promise.all(triggers.map((trigger) => trigger.stop()));
      triggers = [];
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
