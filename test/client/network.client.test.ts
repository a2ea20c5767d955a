import { readFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import * as net from "node:net";
import * as path from "node:path";
import { inspect } from "node:util";
import type { Instrumenter, TracingContext, TracingSpan } from "@azure/core-tracing";
import {
  type ConnectionOptions,
  DEFAULT_API_VERSIONS,
  type RetryOptions,
  TwinServiceClient,
} from "../../client";
import { LOGGED_HEADER_NAMES, LOGGED_QUERY_PARAMETERS } from "../../client/transport";
import { CLIENT_VERSION } from "../../client/version";
import { freePort } from "../../dev/ports";
import { instanceId, rejection } from "./fixtures";

// The client over a real network that misbehaves: connections reset or refused, tries that hang,
// a proxy in between; and what it tells the world: User-Agent, logs (redacted) and trace spans.
// Everything listens on loopback and is closed after each test.

const KEY = "network-test-key";
const API_VERSION = DEFAULT_API_VERSIONS.resources;
const PROFILE = { id: "p", authenticationProfileName: "p", authenticationProfileContent: "{}" };
type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | "hang";
const ok: Answer = { status: 200, headers: { etag: '"v1"' }, body: PROFILE };
const accepted: Answer = { status: 202, body: { accepted: 1 } };
const EVENT = { id: "e1", source: "/line", specversion: "1.0" as const, type: "Twin.Update" };

interface Arrival {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  at: number;
}

interface ScriptedServer {
  port: number;
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Answers the n-th request with `answers[n]` (the last one over and over); "hang" never answers. */
async function scriptedServer(answers: Answer[], port = 0): Promise<ScriptedServer> {
  const started = Date.now();
  const arrivals: Arrival[] = [];
  const server: Server = createServer((request, response) => {
    arrivals.push({
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers,
      at: Date.now() - started,
    });
    request.resume();
    const answer = answers[Math.min(arrivals.length - 1, answers.length - 1)] as Answer;
    if (answer === "hang") return;
    response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    response.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as net.AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  closers.push(close);
  return { port: bound, url: `http://127.0.0.1:${bound}`, arrivals, close };
}

interface TcpProxy {
  url: string;
  /** Connections the client opened to the proxy. */
  connections: number;
  /** For each request seen (1-based order), the connection (1-based) it came on. */
  requestConnections: number[];
}

/**
 * A loopback TCP proxy to `targetPort` that resets (RST) the connection carrying each request whose
 * 1-based number is in `resetRequests`, as soon as the request's first bytes arrive: the request is
 * sent, and neither answered nor passed on.
 */
async function resettingProxy(targetPort: number, resetRequests: number[]): Promise<TcpProxy> {
  const state: TcpProxy = { url: "", connections: 0, requestConnections: [] };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    state.connections += 1;
    const connection = state.connections;
    const upstream = net.connect(targetPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("data", (chunk: Buffer) => {
      if (/^[A-Z]+ \S+ HTTP\/1\.1\r\n/.test(chunk.toString("latin1", 0, 200))) {
        state.requestConnections.push(connection);
        if (resetRequests.includes(state.requestConnections.length)) {
          client.resetAndDestroy();
          upstream.destroy();
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return state;
}

function client(endpoint: string, retry: RetryOptions = {}, options: Partial<ConnectionOptions> = {}) {
  return new TwinServiceClient({ endpoint, key: KEY, retry: { defaultDelayMs: 20, ...retry }, ...options });
}

describe("a connection reset", () => {
  it("of the first connection, once the request is in, is retried on a new connection", async () => {
    const server = await scriptedServer([ok]);
    const proxy = await resettingProxy(server.port, [1]);
    expect(await client(proxy.url).profiles.get("p")).toEqual({ ...PROFILE, etag: '"v1"' });
    expect(proxy.requestConnections).toEqual([1, 2]);
    expect(server.arrivals).toHaveLength(1);
  });

  it("of a kept-alive connection the server dropped between two calls: the second call still succeeds", async () => {
    const server = await scriptedServer([ok]);
    const proxy = await resettingProxy(server.port, [2]);
    const longLived = client(proxy.url);
    await longLived.profiles.get("p");
    // The second call goes out on the pooled connection, which is reset; its retry opens another.
    expect((await longLived.profiles.get("p")).etag).toBe('"v1"');
    expect(proxy.requestConnections).toEqual([1, 1, 2]);
    expect(server.arrivals).toHaveLength(2);
  });

  it.each([
    ["PUT", (c: TwinServiceClient) => c.profiles.put("p", { authenticationProfileContent: "{}" })],
    ["PATCH", (c: TwinServiceClient) => c.profiles.update("p", { authenticationProfileContent: "{}" })],
    ["DELETE", (c: TwinServiceClient) => c.profiles.delete("p")],
  ])("retries %s, idempotent", async (method, call) => {
    const server = await scriptedServer([ok]);
    const proxy = await resettingProxy(server.port, [1]);
    await call(client(proxy.url));
    expect(server.arrivals.map((arrival) => arrival.method)).toEqual([method]);
    expect(proxy.connections).toBe(2);
  });

  it("does not retry POST (event ingest): the events may have been queued; the RestError names the reset", async () => {
    const server = await scriptedServer([accepted]);
    const proxy = await resettingProxy(server.port, [1]);
    const error = (await rejection(() =>
      client(proxy.url).events.ingest(instanceId("net"), EVENT),
    )) as Error & {
      code?: string;
    };
    expect({ name: error.name, code: error.code }).toEqual({ name: "RestError", code: "ECONNRESET" });
    expect(proxy.connections).toBe(1);
    expect(server.arrivals).toHaveLength(0);
    for (const shown of [String(error), inspect(error), JSON.stringify(error)])
      expect(shown).not.toContain(KEY);
  });

  it("maxRetries 0 turns network retries off too", async () => {
    const server = await scriptedServer([ok]);
    const proxy = await resettingProxy(server.port, [1]);
    await expect(client(proxy.url, { maxRetries: 0 }).profiles.get("p")).rejects.toMatchObject({
      code: "ECONNRESET",
    });
    expect(proxy.connections).toBe(1);
  });
});

describe("a refused connection", () => {
  it.each([
    ["GET", (c: TwinServiceClient) => c.profiles.get("p"), ok],
    // Refused: nothing was sent, so even a POST is retried.
    ["POST", (c: TwinServiceClient) => c.events.ingest(instanceId("net"), EVENT), accepted],
  ] as const)("is retried until the service listens (%s)", async (method, call, answer) => {
    const port = await freePort();
    const started = Date.now();
    const pending = call(client(`http://127.0.0.1:${port}`, { defaultDelayMs: 300 }));
    let server: ScriptedServer | undefined;
    setTimeout(() => {
      void scriptedServer([answer], port).then((listening) => {
        server = listening;
      });
    }, 100);
    await expect(pending).resolves.toBeDefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(server?.arrivals.map((arrival) => arrival.method)).toEqual([method]);
  });

  it("rejects with ECONNREFUSED once the retries are spent", async () => {
    const port = await freePort();
    await expect(
      client(`http://127.0.0.1:${port}`, { maxRetries: 1, defaultDelayMs: 10 }).profiles.get("p"),
    ).rejects.toMatchObject({ name: "RestError", code: "ECONNREFUSED" });
  });
});

describe("the per-try timeout (retry.tryTimeoutMs)", () => {
  it("abandons a try that hangs and retries an idempotent call", async () => {
    const server = await scriptedServer(["hang", ok]);
    const started = Date.now();
    expect((await client(server.url, { tryTimeoutMs: 200 }).profiles.get("p")).etag).toBe('"v1"');
    expect(server.arrivals).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("throws ETIMEDOUT for a POST, without retrying it", async () => {
    const server = await scriptedServer(["hang", accepted]);
    // The hang has no end: the call ends by the try timeout given (its message names it), not the
    // default one, and only once.
    await expect(
      client(server.url, { tryTimeoutMs: 200 }).events.ingest(instanceId("net"), EVENT),
    ).rejects.toMatchObject({
      name: "RestError",
      code: "ETIMEDOUT",
      message: expect.stringContaining("within 200 ms"),
    });
    expect(server.arrivals).toHaveLength(1);
  });

  it("gives up after maxRetries tries that all hang", async () => {
    const server = await scriptedServer(["hang"]);
    await expect(
      client(server.url, { tryTimeoutMs: 100, maxRetries: 2 }).profiles.get("p"),
    ).rejects.toMatchObject({ code: "ETIMEDOUT" });
    expect(server.arrivals).toHaveLength(3);
  });

  it("an abort by the caller mid-try is the caller's, not a timeout to retry", async () => {
    const server = await scriptedServer(["hang", ok]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stopped")), 100);
    await expect(
      client(server.url, { tryTimeoutMs: 5000 }).profiles.get("p", { signal: controller.signal }),
    ).rejects.toThrow("stopped");
    expect(server.arrivals).toHaveLength(1);
  });

  it("defaults to 60 s, and 0 means no limit", () => {
    expect(() => client("http://127.0.0.1:9", { tryTimeoutMs: 0 })).not.toThrow();
    expect(() => client("http://127.0.0.1:9", { tryTimeoutMs: -1 })).toThrow(/retry.tryTimeoutMs/);
  });
});

describe("User-Agent", () => {
  it("is twin-resource-service-client/<version>, then the pipeline's, after the caller's prefix", async () => {
    const server = await scriptedServer([ok]);
    await client(server.url).profiles.get("p");
    await client(server.url, {}, { userAgentOptions: { userAgentPrefix: "my-app/2.1" } }).profiles.get("p");
    const [own, prefixed] = server.arrivals.map((arrival) => arrival.headers["user-agent"]);
    expect(own).toMatch(/^twin-resource-service-client\/0\.1\.0 core-rest-pipeline\/\S+ Node\/\S+ \(/);
    expect(prefixed).toBe(`my-app/2.1 ${own}`);
  });

  it("carries the version of the root package.json", () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
    expect(CLIENT_VERSION).toBe(manifest.version);
  });
});

/** The client and an Azure SDK package loaded afresh, so they read the environment as set now. */
function isolated<T>(load: () => T): T {
  let loaded: T | undefined;
  jest.isolateModules(() => {
    loaded = load();
  });
  return loaded as T;
}

describe("logging (@azure/logger, AZURE_LOG_LEVEL)", () => {
  const saved = process.env.AZURE_LOG_LEVEL;
  afterEach(() => {
    if (saved === undefined) delete process.env.AZURE_LOG_LEVEL;
    else process.env.AZURE_LOG_LEVEL = saved;
  });

  it("logs each try with the key header and any `code` query value REDACTED", async () => {
    const scripted = await scriptedServer([
      { status: 503, headers: { "retry-after-ms": "10", "x-ms-request-id": "req-1" }, body: {} },
      { status: 200, body: { value: [PROFILE] } },
    ]);
    process.env.AZURE_LOG_LEVEL = "info";
    const { logger, clientModule } = isolated(() => ({
      logger: require("@azure/logger") as typeof import("@azure/logger"),
      clientModule: require("../../client") as typeof import("../../client"),
    }));
    const lines: string[] = [];
    logger.AzureLogger.log = (...args: unknown[]) => lines.push(args.map(String).join(" "));
    const isolatedClient = new clientModule.TwinServiceClient({ endpoint: scripted.url, key: KEY });
    await isolatedClient.profiles.listPage({
      nextLink: `${scripted.url}/authenticationProfiles?api-version=${API_VERSION}&$skipToken=t1&code=query-key-value`,
    });

    const log = lines.join("\n");
    expect(log).toMatch(/azure:twin-resource-service-client:info Request: /);
    expect(log).toContain('"x-functions-key": "REDACTED"');
    expect(log).toContain("code=REDACTED");
    expect(log).toContain(`api-version=${API_VERSION}`);
    expect(log).toContain("%24skipToken=t1");
    expect(log).toContain('"retry-after-ms": "10"');
    expect(log).toContain('"x-ms-request-id": "req-1"');
    expect(log).toMatch(/twin-resource-service-client:info Response status code: 200/);
    expect(log).not.toContain(KEY);
    expect(log).not.toContain("query-key-value");
    expect(scripted.arrivals).toHaveLength(2);
  });

  it("logs a token's Authorization header REDACTED, and the token nowhere", async () => {
    const token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJsb2dnZWQifQ.c2lnbmF0dXJlLW5vdC10by1sb2c";
    const scripted = await scriptedServer([
      { status: 503, headers: { "retry-after-ms": "10" }, body: {} },
      { status: 401, body: { error: { code: "InvalidAuthenticationToken", message: "Bad token." } } },
    ]);
    process.env.AZURE_LOG_LEVEL = "info";
    const { logger, clientModule } = isolated(() => ({
      logger: require("@azure/logger") as typeof import("@azure/logger"),
      clientModule: require("../../client") as typeof import("../../client"),
    }));
    const lines: string[] = [];
    logger.AzureLogger.log = (...args: unknown[]) => lines.push(args.map(String).join(" "));
    const isolatedClient = new clientModule.TwinServiceClient({
      endpoint: scripted.url,
      credential: clientModule.staticTokenCredential(token),
      credentialScopes: "api://service/.default",
    });
    const error = await rejection(() => isolatedClient.profiles.get("p"));

    const log = lines.join("\n");
    expect(log).toContain('"authorization": "REDACTED"');
    expect(log).not.toContain(token);
    expect(log).not.toContain("c2lnbmF0dXJlLW5vdC10by1sb2c");
    expect(inspect(error, { depth: 8 })).not.toContain(token);
    expect(scripted.arrivals.map((arrival) => arrival.headers.authorization)).toEqual([
      `Bearer ${token}`,
      `Bearer ${token}`,
    ]);
  });

  it("never allows the key header, the Authorization header or the `code` query parameter into a log", () => {
    expect(LOGGED_HEADER_NAMES.map((name) => name.toLowerCase())).not.toContain("authorization");
    expect(LOGGED_HEADER_NAMES.map((name) => name.toLowerCase())).not.toContain("x-functions-key");
    expect(LOGGED_QUERY_PARAMETERS.map((name) => name.toLowerCase())).not.toContain("code");
  });
});

describe("tracing (@azure/core-tracing)", () => {
  it("opens a client span per try, with the URL sanitized, and sends its traceparent", async () => {
    const server = await scriptedServer([{ status: 503, headers: { "retry-after-ms": "0" }, body: {} }, ok]);
    const spans: { name: string; attributes: Record<string, unknown>; ended: boolean }[] = [];
    const context: TracingContext = {
      getValue: () => undefined,
      setValue: () => context,
      deleteValue: () => context,
    };
    const instrumenter: Instrumenter = {
      startSpan(name, options) {
        const record = { name, attributes: { ...options.spanAttributes }, ended: false };
        spans.push(record);
        const span: TracingSpan = {
          setAttribute: (key, value) => {
            record.attributes[key] = value;
          },
          setStatus: () => {},
          end: () => {
            record.ended = true;
          },
          recordException: () => {},
          isRecording: () => true,
        };
        return { span, tracingContext: context };
      },
      withContext: (_context, callback, ...args) => callback(...args),
      parseTraceparentHeader: () => undefined,
      createRequestHeaders: () => ({
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      }),
    };
    const { tracing, clientModule } = isolated(() => ({
      tracing: require("@azure/core-tracing") as typeof import("@azure/core-tracing"),
      clientModule: require("../../client") as typeof import("../../client"),
    }));
    tracing.useInstrumenter(instrumenter);
    await new clientModule.TwinServiceClient({ endpoint: server.url, key: KEY }).profiles.get("p");

    expect(spans.map((span) => [span.name, span.attributes["http.status_code"], span.ended])).toEqual([
      ["HTTP GET", 503, true],
      ["HTTP GET", 200, true],
    ]);
    expect(spans[0]?.attributes["http.url"]).toBe(
      `${server.url}/authenticationProfiles/p?api-version=${API_VERSION}`,
    );
    expect(server.arrivals.map((arrival) => arrival.headers.traceparent)).toEqual([
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    ]);
  });

  it("sends no traceparent when OpenTelemetry is not set up", async () => {
    const server = await scriptedServer([ok]);
    await client(server.url).profiles.get("p");
    expect(server.arrivals[0]?.headers.traceparent).toBeUndefined();
  });
});

describe("a proxy (HTTPS_PROXY)", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ["HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  /** A loopback forward proxy for http:// targets: it sees the absolute URL of every request. */
  async function forwardProxy(): Promise<{ url: string; seen: string[] }> {
    const seen: string[] = [];
    const server = createServer((incoming, outgoing) => {
      seen.push(`${incoming.method} ${incoming.url}`);
      const target = new URL(incoming.url ?? "");
      const forwarded = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: incoming.method,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, seen };
  }

  it("sends every request through the proxy the environment names", async () => {
    const server = await scriptedServer([ok]);
    const proxy = await forwardProxy();
    process.env.HTTPS_PROXY = proxy.url;
    process.env.NO_PROXY = "";
    delete process.env.no_proxy;
    const clientModule = isolated(() => require("../../client") as typeof import("../../client"));
    const proxied = new clientModule.TwinServiceClient({ endpoint: server.url, key: KEY });
    expect((await proxied.profiles.get("p")).etag).toBe('"v1"');
    expect(proxy.seen).toEqual([`GET ${server.url}/authenticationProfiles/p?api-version=${API_VERSION}`]);
    expect(server.arrivals).toHaveLength(1);
  });

  it("or the one `proxyOptions` names", async () => {
    const server = await scriptedServer([ok]);
    const proxy = await forwardProxy();
    const port = Number(new URL(proxy.url).port);
    await client(server.url, {}, { proxyOptions: { host: "http://127.0.0.1", port } }).profiles.get("p");
    expect(proxy.seen).toHaveLength(1);
  });
});
