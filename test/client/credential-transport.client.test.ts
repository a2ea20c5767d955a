import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AccessToken, TokenCredential } from "@azure/core-auth";
import { createHttpHeaders, createPipelineRequest } from "@azure/core-rest-pipeline";
import { ServiceError, staticTokenCredential, TwinServiceClient } from "../../client";
import { loopbackBearerPolicy } from "../../client/bearer-policy";
import { rejection } from "./fixtures";

// How the client carries a token, against scripted servers on loopback: which URLs a token may go
// to over plain http (loopback only, checked before anything is asked or sent), what each request
// carries, refresh, a 401, and proxies.

const SCOPE = "api://00000000-0000-4000-8000-0000000a0d1e/.default";
const PROFILE = { id: "p", authenticationProfileName: "p", authenticationProfileContent: "{}" };

interface Arrival {
  url: string;
  headers: IncomingHttpHeaders;
}
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Answers the n-th request with `answers[n]` (the last one over and over). */
async function scripted(answers: Answer[]): Promise<{ url: string; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((request, response) => {
    arrivals.push({ url: request.url ?? "", headers: request.headers });
    request.resume();
    const answer = answers[Math.min(arrivals.length - 1, answers.length - 1)] as Answer;
    response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    response.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

/** Hands out `token-1`, `token-2`, … each reported to expire `lifetimeMs` after it is made. */
function countingCredential(lifetimeMs = 3_600_000): TokenCredential & { scopes: string[][] } {
  const scopes: string[][] = [];
  return {
    scopes,
    async getToken(asked: string | string[]): Promise<AccessToken> {
      scopes.push(typeof asked === "string" ? [asked] : [...asked]);
      return { token: `token-${scopes.length}`, expiresOnTimestamp: Date.now() + lifetimeMs };
    },
  };
}

function tokenClient(endpoint: string, credential: TokenCredential) {
  return new TwinServiceClient({
    endpoint,
    credential,
    credentialScopes: SCOPE,
    retry: { defaultDelayMs: 10 },
  });
}

describe("where a token may go over plain http", () => {
  const notLoopback = [
    "http://example.com",
    "http://10.0.0.1:7071",
    "http://0.0.0.0:7071",
    "http://[::]:7071",
    "http://127.0.0.1.nip.io:7071",
    "http://localhost.example.com",
    "http://localhost.:7071",
    "http://[::ffff:127.0.0.1]:7071",
    "http://128.0.0.1",
  ];
  it.each(notLoopback)("%s: refused when the client is made, the credential never asked", (endpoint) => {
    const credential = countingCredential();
    expect(() => tokenClient(endpoint, credential)).toThrow(/only to loopback/);
    expect(credential.scopes).toEqual([]);
  });

  const loopback = [
    "http://127.0.0.1:7071",
    "http://127.9.8.7",
    "http://localhost:7071",
    "http://LOCALHOST:7071",
    "http://[::1]:7071",
    "http://[0:0::1]",
    "http://2130706433",
    "http://127.1",
    "https://example.com",
  ];
  it.each(loopback)("%s: accepted", (endpoint) => {
    expect(() => tokenClient(endpoint, countingCredential())).not.toThrow();
  });

  it("the policy itself refuses a non-loopback http request, before asking for a token or sending", async () => {
    const credential = countingCredential();
    const policy = loopbackBearerPolicy({ credential, scopes: [SCOPE], needsToken: () => true });
    const next = jest.fn();
    for (const url of ["http://example.com/authenticationProfiles", "http://10.1.2.3:7071/x"]) {
      const request = createPipelineRequest({ url, headers: createHttpHeaders() });
      await expect(policy.sendRequest(request, next)).rejects.toThrow(/only to loopback/);
      expect(request.headers.has("authorization")).toBe(false);
    }
    expect(next).not.toHaveBeenCalled();
    expect(credential.scopes).toEqual([]);
  });

  it("a loopback http request goes out with the token and its own URL", async () => {
    const credential = countingCredential();
    const policy = loopbackBearerPolicy({ credential, scopes: [SCOPE], needsToken: () => true });
    const seen: string[] = [];
    const request = createPipelineRequest({
      url: "http://127.0.0.1:7071/x?y=1",
      headers: createHttpHeaders(),
    });
    await policy.sendRequest(request, async (sent) => {
      seen.push(sent.url, sent.headers.get("authorization") ?? "");
      return { request: sent, status: 200, headers: createHttpHeaders() };
    });
    expect(seen).toEqual(["http://127.0.0.1:7071/x?y=1", "Bearer token-1"]);
    expect(request.url).toBe("http://127.0.0.1:7071/x?y=1");
  });
});

describe("what the requests carry", () => {
  it("Authorization: Bearer on each call, no key; /health goes without", async () => {
    const server = await scripted([{ status: 200, headers: { etag: '"1"' }, body: PROFILE }]);
    const credential = countingCredential();
    const client = tokenClient(server.url, credential);
    await client.profiles.get("p");
    await client.profiles.get("p");
    await client.health().catch(() => undefined);
    expect(server.arrivals.map((arrival) => arrival.headers.authorization)).toEqual([
      "Bearer token-1",
      "Bearer token-1",
      undefined,
    ]);
    expect(server.arrivals.every((arrival) => arrival.headers["x-functions-key"] === undefined)).toBe(true);
    expect(credential.scopes).toEqual([[SCOPE]]);
  });

  it("a new token once the one held has expired", async () => {
    const server = await scripted([{ status: 200, headers: { etag: '"1"' }, body: PROFILE }]);
    const credential = countingCredential(1200);
    const client = tokenClient(server.url, credential);
    await client.profiles.get("p");
    await new Promise((resolve) => setTimeout(resolve, 1300));
    await client.profiles.get("p");
    expect(server.arrivals.map((arrival) => arrival.headers.authorization)).toEqual([
      "Bearer token-1",
      "Bearer token-2",
    ]);
  });

  it("a retried call (503) carries the token on each try", async () => {
    const server = await scripted([
      { status: 503, headers: { "retry-after-ms": "10" }, body: {} },
      { status: 200, headers: { etag: '"1"' }, body: PROFILE },
    ]);
    await tokenClient(server.url, countingCredential()).profiles.get("p");
    expect(server.arrivals.map((arrival) => arrival.headers.authorization)).toEqual([
      "Bearer token-1",
      "Bearer token-1",
    ]);
  });

  it("a 401 is thrown at once as InvalidAuthenticationToken: not retried, no second token", async () => {
    const server = await scripted([
      {
        status: 401,
        headers: {
          "www-authenticate": 'Bearer error="invalid_token", error_description="The token expired"',
        },
        body: { error: { code: "InvalidAuthenticationToken", message: "The token expired." } },
      },
    ]);
    const credential = countingCredential();
    const error = (await rejection(() =>
      tokenClient(server.url, credential).profiles.get("p"),
    )) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect({ status: error.status, code: error.code }).toEqual({
      status: 401,
      code: "InvalidAuthenticationToken",
    });
    expect(server.arrivals).toHaveLength(1);
    expect(credential.scopes).toHaveLength(1);
  });

  it("a credential that fails rejects the call with its error, and nothing is sent", async () => {
    const server = await scripted([{ status: 200, body: PROFILE }]);
    const failing: TokenCredential = {
      getToken: async () => {
        throw new Error("no signed-in account");
      },
    };
    await expect(tokenClient(server.url, failing).profiles.get("p")).rejects.toThrow(/no signed-in account/);
    expect(server.arrivals).toEqual([]);
  });
});

describe("proxies", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("a token over plain http goes straight to loopback, never through HTTPS_PROXY", async () => {
    const proxy = await scripted([{ status: 502, body: {} }]);
    const server = await scripted([{ status: 200, headers: { etag: '"1"' }, body: PROFILE }]);
    process.env.HTTPS_PROXY = proxy.url;
    process.env.HTTP_PROXY = proxy.url;
    await tokenClient(server.url, countingCredential()).profiles.get("p");
    expect(proxy.arrivals).toEqual([]);
    expect(server.arrivals).toHaveLength(1);
  });

  it("proxyOptions with a token over plain http is refused", () => {
    expect(
      () =>
        new TwinServiceClient({
          endpoint: "http://127.0.0.1:7071",
          credential: countingCredential(),
          credentialScopes: SCOPE,
          proxyOptions: { host: "http://127.0.0.1", port: 3128 },
        }),
    ).toThrow(/proxy/);
  });
});

describe("the options", () => {
  const credential = countingCredential();
  const cases: [string, unknown, RegExp][] = [
    ["both a key and a credential", { key: "k", credential, credentialScopes: SCOPE }, /not both/],
    ["a credential without scopes", { credential }, /credentialScopes is required/],
    ["empty scopes", { credential, credentialScopes: [] }, /credentialScopes is required/],
    ["a blank scope", { credential, credentialScopes: [" "] }, /credentialScopes is required/],
    [
      "something that is not a credential",
      { credential: { token: "t" }, credentialScopes: SCOPE },
      /getToken/,
    ],
    ["neither", {}, /key must be a non-empty string/],
  ];
  it.each(cases)("refuse %s", (_, options, message) => {
    const all = { endpoint: "http://127.0.0.1:7071", ...(options as object) };
    expect(() => new TwinServiceClient(all as ConstructorParameters<typeof TwinServiceClient>[0])).toThrow(
      message,
    );
  });
});

describe("staticTokenCredential", () => {
  const jwt = (claims: object) =>
    `e30.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.c2lnbmF0dXJl`;

  it("answers its token whatever the scope, expiring at the JWT's exp", async () => {
    const token = jwt({ exp: 2_000_000_000 });
    const credential = staticTokenCredential(`Bearer ${token}`);
    expect(await credential.getToken(SCOPE)).toEqual({
      token,
      expiresOnTimestamp: 2_000_000_000_000,
      tokenType: "Bearer",
    });
  });

  it("takes a token that is not a JWT (or has no exp) as good for an hour", async () => {
    for (const token of ["opaque-token", jwt({ sub: "x" }), "a.%%%.b"]) {
      const answered = await staticTokenCredential(token).getToken(SCOPE);
      expect(answered?.token).toBe(token);
      expect(answered?.expiresOnTimestamp).toBeGreaterThan(Date.now() + 3_500_000);
    }
  });

  it("refuses an empty token", () => {
    expect(() => staticTokenCredential(" ")).toThrow(TypeError);
  });

  it("carries the token to the server", async () => {
    const server = await scripted([{ status: 200, headers: { etag: '"1"' }, body: PROFILE }]);
    await tokenClient(server.url, staticTokenCredential("static-one")).profiles.get("p");
    expect(server.arrivals[0]?.headers.authorization).toBe("Bearer static-one");
  });
});
