import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { FunctionApp, RpcTypedData } from "./functions-worker";
import type { HostSettings } from "./host-json";
import type { HostLogger } from "./host-logger";
import { isAuthorized, type LocalKeys } from "./key-check";
import type { QueueTrigger } from "./queue-trigger";
import { RouteMatcher } from "./route-matcher";

/**
 * A stand-in for the Functions host on one machine, around a package loaded as the Node.js worker
 * loads it (dev/functions-worker.ts): it routes HTTP requests to the registered HTTP functions by
 * their route templates, methods and host.json's route prefix, checks keys by each function's
 * authLevel before invoking it, and polls each registered queue function's queue. What it answers
 * itself it answers as the Functions host does, with no body: 404 when no function takes the path
 * and method, 401 for a missing or wrong key, 413 past the host's body limit. Local-only.
 */

export interface LocalHostOptions {
  app: FunctionApp;
  keys: LocalKeys;
  routePrefix: string;
  /** Poll the queue functions' queues, with host.json's queue settings; absent: HTTP only. */
  queues?: {
    settings: HostSettings["queues"];
    /** The app settings: a queue binding's `connection` names its storage connection string there. */
    env: NodeJS.ProcessEnv;
    /** How long a message stays locked while its handler runs (renewed); 60 s unless set. */
    lockSeconds?: number;
    /** Functions not to run (the app setting `AzureWebJobs.<name>.Disabled`). */
    disabled?: ReadonlySet<string>;
  };
  log: HostLogger;
}

export interface LocalHost {
  /** Resolves with the base URL once listening and the queue triggers have started; port 0 picks a free port. */
  listen(port: number): Promise<string>;
  close(): Promise<void>;
}

interface HttpFunction {
  name: string;
  route: string;
  methods: string[];
  authLevel: string;
}

/** The Functions host's request body limit (FUNCTIONS_REQUEST_BODY_SIZE_LIMIT's default, 100 MB). */
const HOST_BODY_LIMIT_BYTES = 104_857_600;

class BodyTooLarge extends Error {}

/** The registered HTTP functions, as their trigger bindings describe them (a route defaults to the name). */
function httpFunctions(app: FunctionApp): HttpFunction[] {
  const found: HttpFunction[] = [];
  for (const { metadata } of app.functions.values()) {
    const trigger = Object.values(metadata.bindings).find((binding) => binding.type === "httpTrigger");
    if (!trigger) continue;
    found.push({
      name: metadata.name,
      route: trigger.route ?? metadata.name,
      methods: (trigger.methods ?? ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]).map((m) =>
        m.toUpperCase(),
      ),
      authLevel: trigger.authLevel ?? "function",
    });
  }
  return found;
}

/**
 * The key as the Functions host reads it: `x-functions-key`, else the first `code` of the query,
 * its name in any letter case (ASP.NET's query is case-insensitive; the host takes values.First()).
 */
function givenKey(request: http.IncomingMessage, url: URL): string | null {
  const header = request.headers["x-functions-key"];
  if (typeof header === "string") return header;
  for (const [name, value] of url.searchParams) if (name.toLowerCase() === "code") return value;
  return null;
}

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  if (Number(request.headers["content-length"] ?? 0) > HOST_BODY_LIMIT_BYTES) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > HOST_BODY_LIMIT_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The received headers as the host passes them: one string each (Node joins repeats with ", "). */
function headerRecord(request: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function answerBare(response: http.ServerResponse, status: number): void {
  response.writeHead(status, { "Content-Length": "0" });
  response.end();
}

export function createLocalHost(options: LocalHostOptions): LocalHost {
  const { app, log } = options;
  const matcher = new RouteMatcher(httpFunctions(app), options.routePrefix);
  let origin = "http://127.0.0.1";

  async function handle(incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> {
    // Appended, not resolved: `//other.example/x` stays a path on this host. URL parsing removes
    // dot segments, percent-encoded ones too, as Kestrel's path normalization does before routing;
    // it would also read a backslash as a slash, which Kestrel does not, hence the escape.
    const target = incoming.url ?? "/";
    let url: URL;
    try {
      if (!target.startsWith("/")) throw new Error("not an origin-form target");
      url = new URL(`${origin}${target.replaceAll("\\", "%5C")}`);
    } catch {
      answerBare(outgoing, 400);
      return;
    }
    const method = incoming.method ?? "GET";
    const result = matcher.match(method, url.pathname);
    if (result.kind === "not-found") {
      answerBare(outgoing, 404);
      return;
    }
    const { route, params } = result.match;
    if (!isAuthorized(route.authLevel, givenKey(incoming, url), options.keys)) {
      answerBare(outgoing, 401);
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(incoming);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      outgoing.setHeader("Connection", "close");
      answerBare(outgoing, 413);
      return;
    }
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

  let triggers: QueueTrigger[] = [];

  async function startTriggers(): Promise<void> {
    const queues = options.queues;
    if (!queues) return;
    const { startQueueTrigger } = await import("./queue-trigger");
    for (const { metadata } of app.functions.values()) {
      const binding = Object.values(metadata.bindings).find((b) => b.type === "queueTrigger");
      if (!binding?.queueName || queues.disabled?.has(metadata.name)) continue;
      const connectionString = queues.env[binding.connection || "AzureWebJobsStorage"];
      if (!connectionString)
        throw new Error(`${metadata.name}: the setting ${binding.connection} holds no connection string`);
      triggers.push(
        await startQueueTrigger({
          connectionString,
          queueName: binding.queueName,
          functionName: metadata.name,
          handler: (text, triggerMetadata: Record<string, RpcTypedData>, invocationId) =>
            app.invokeQueue(metadata.name, text, triggerMetadata, invocationId),
          settings: queues.settings,
          ...(queues.lockSeconds !== undefined && { lockSeconds: queues.lockSeconds }),
          log,
        }),
      );
    }
  }

  return {
    async listen(port) {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          server.off("error", reject);
          resolve();
        });
      });
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await startTriggers();
      return origin;
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
