import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type RetryOptions, ServiceError, TwinServiceClient } from "../../client";
import { decideRetry, retryAfterMs } from "../../client/retry-policy";
import { rejection } from "./fixtures";

// The retry policy for 429 and 503, against a tiny local server that answers from a script.
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

interface ScriptedServer {
  url: string;
  /** When each request arrived, in ms since the server started. */
  arrivals: number[];
  /** The key each request carried. */
  keys: (string | undefined)[];
  close(): Promise<void>;
}

async function scriptedServer(answers: Answer[]): Promise<ScriptedServer> {
  const started = Date.now();
  const arrivals: number[] = [];
  const keys: (string | undefined)[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    arrivals.push(Date.now() - started);
    keys.push(request.headers["x-functions-key"] as string | undefined);
    const answer = answers[Math.min(arrivals.length - 1, answers.length - 1)] as Answer;
    response.writeHead(answer.status, {
      "content-type": "application/json",
      "x-ms-request-id": `request-${arrivals.length}`,
      ...answer.headers,
    });
    response.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    keys,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const PROFILE = { id: "p", authenticationProfileName: "p", authenticationProfileContent: "{}" };
const ok: Answer = { status: 200, headers: { etag: '"v1"' }, body: PROFILE };
const unavailable = (retryAfter?: string): Answer => ({
  status: 503,
  headers: retryAfter === undefined ? {} : { "retry-after": retryAfter },
  body: { error: { code: "ServiceUnavailable", message: "Cosmos DB cannot be reached." } },
});
const throttled: Answer = {
  status: 429,
  headers: { "retry-after": "1" },
  body: { error: { code: "TooManyRequests", message: "Throttled." } },
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function client(url: string, retry?: RetryOptions): TwinServiceClient {
  return new TwinServiceClient({ endpoint: url, key: "scripted-key", ...(retry && { retry }) });
}

describe("retrying 429 and 503", () => {
  it("waits the Retry-After of a 503, then returns the 200 that follows", async () => {
    server = await scriptedServer([unavailable("1"), ok]);
    const profile = await client(server.url).profiles.get("p");
    expect(profile).toEqual({ ...PROFILE, etag: '"v1"' });
    expect(server.arrivals).toHaveLength(2);
    expect((server.arrivals[1] as number) - (server.arrivals[0] as number)).toBeGreaterThanOrEqual(950);
    expect(server.keys).toEqual(["scripted-key", "scripted-key"]);
  });

  it("retries a 429 the same way", async () => {
    server = await scriptedServer([throttled, ok]);
    expect((await client(server.url).profiles.get("p")).etag).toBe('"v1"');
    expect(server.arrivals).toHaveLength(2);
  });

  it("gives up after maxRetries and throws the last answer as a ServiceError", async () => {
    server = await scriptedServer([unavailable("0")]);
    const error = (await rejection(() =>
      client(server?.url as string, { maxRetries: 2 }).profiles.get("p"),
    )) as ServiceError;
    expect(server.arrivals).toHaveLength(3);
    expect(error).toBeInstanceOf(ServiceError);
    expect({
      status: error.status,
      code: error.code,
      requestId: error.requestId,
      retryAfterMs: error.retryAfterMs,
    }).toEqual({
      status: 503,
      code: "ServiceUnavailable",
      requestId: "request-3",
      retryAfterMs: 0,
    });
  });

  it("maxRetries 0 turns retrying off", async () => {
    server = await scriptedServer([unavailable("0"), ok]);
    await expect(client(server.url, { maxRetries: 0 }).profiles.get("p")).rejects.toThrow(ServiceError);
    expect(server.arrivals).toHaveLength(1);
  });

  it("without Retry-After, waits defaultDelayMs, doubling", async () => {
    server = await scriptedServer([unavailable(), unavailable(), ok]);
    await client(server.url, { defaultDelayMs: 100 }).profiles.get("p");
    const [first, second, third] = server.arrivals as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(90);
    expect(third - second).toBeGreaterThanOrEqual(190);
  });

  it("never retries sooner than asked: a Retry-After past maxDelayMs is handed to the caller", async () => {
    server = await scriptedServer([unavailable("120"), ok]);
    const error = (await rejection(() => client(server?.url as string).profiles.get("p"))) as ServiceError;
    expect(server.arrivals).toHaveLength(1);
    expect(error.retryAfterMs).toBe(120_000);
  });

  it("does not retry other failures", async () => {
    server = await scriptedServer([
      { status: 500, body: { error: { code: "InternalServerError", message: "x" } } },
      ok,
    ]);
    await expect(client(server.url).profiles.get("p")).rejects.toMatchObject({ status: 500 });
    expect(server.arrivals).toHaveLength(1);
  });

  it("an abort during the wait ends the call", async () => {
    server = await scriptedServer([unavailable("30"), ok]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stopped")), 100);
    await expect(client(server.url).profiles.get("p", { signal: controller.signal })).rejects.toThrow(
      "stopped",
    );
    expect(server.arrivals).toHaveLength(1);
  });

  it("health answers a 503 report at once instead of retrying it", async () => {
    const report = { status: "unavailable", checks: { cosmos: "unavailable", storage: "ok" } };
    server = await scriptedServer([{ status: 503, headers: { "retry-after": "5" }, body: report }]);
    expect(await client(server.url).health()).toEqual(report);
    expect(server.arrivals).toHaveLength(1);
    expect(server.keys).toEqual([undefined]);
  });
});

describe("an answer without an ARM error body", () => {
  it("still becomes a ServiceError with a code from the status, quoting nothing of the body", async () => {
    server = await scriptedServer([
      { status: 404, headers: { "content-type": "text/html" }, body: "<secret-page>" },
    ]);
    const error = (await rejection(() => client(server?.url as string).profiles.get("p"))) as ServiceError;
    expect({ status: error.status, code: error.code, requestId: error.requestId }).toEqual({
      status: 404,
      code: "NotFound",
      requestId: "request-1",
    });
    expect(error.message).not.toContain("secret-page");
  });
});

describe("reading Retry-After", () => {
  it("takes seconds, an HTTP date, or Azure's retry-after-ms", () => {
    const now = Date.parse("2026-11-22T08:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "5" }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ "retry-after": "Sun, 22 Nov 2026 08:00:07 GMT" }), now)).toBe(7000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "5" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it("decides from the attempt count, the asked wait and the cap", () => {
    const options = { maxRetries: 2, defaultDelayMs: 100, maxDelayMs: 1000 };
    expect(decideRetry(options, 1, undefined)).toEqual({ retry: true, delayMs: 100 });
    expect(decideRetry(options, 2, undefined)).toEqual({ retry: true, delayMs: 200 });
    expect(decideRetry(options, 3, undefined)).toEqual({ retry: false });
    expect(decideRetry(options, 1, 2000)).toEqual({ retry: false });
  });

  it("refuses negative or non-numeric retry options", () => {
    expect(() => client("http://127.0.0.1:9", { maxRetries: -1 })).toThrow(/retry.maxRetries/);
  });
});
