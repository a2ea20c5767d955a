import * as http from "node:http";
import * as net from "node:net";
import { expectArmError } from "../support/arm";
import { FUNCTION_KEY, startTestHost, type TestHost } from "../support/test-host";

// The edges of HTTP (issue 11, items 3 and 6; docs/api.md): methods a path
// does not take, request headers that must not steer links, and JSON that repeats a member name.
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

const PROFILE = "/authenticationProfiles/edge";
const INSTANCE =
  "/subscriptions/00000000-0000-0000-0000-000000000011/resourceGroups/rg/providers/Microsoft.DigitalTwins/digitalTwinsInstances/edges-1";

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses one HTTP/1.1 response the server wrote before closing the connection. */
function parseRawResponse(raw: string): RawResponse {
  const split = raw.indexOf("\r\n\r\n");
  const [statusLine = "", ...headerLines] = raw.slice(0, split).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: raw.slice(split + 4) };
}

/** Sends bytes as they are: fetch and http.request refuse (or upper-case) some methods. */
function rawExchange(requestText: string): Promise<RawResponse> {
  const { hostname, port } = new URL(host.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(requestText));
    let received = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () =>
      received === ""
        ? reject(new Error("the connection closed without an answer"))
        : resolve(parseRawResponse(received)),
    );
  });
}

function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const lines = Object.entries({ host: "127.0.0.1", connection: "close", ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  return rawExchange(`${method} ${path} HTTP/1.1\r\n${lines.join("")}\r\n`);
}

/** http.request, for methods fetch refuses and for headers (Host) it will not send. */
function nodeRequest(
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(host.baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({
      hostname,
      port,
      method,
      path,
      headers: { "x-functions-key": FUNCTION_KEY, ...headers },
    });
    request.on("error", reject);
    request.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers as Record<string, string>,
          body,
        }),
      );
    });
    request.end();
  });
}

/** CONNECT: Node hands the answer to a 'connect' listener, with the body still on the socket. */
function connectRequest(path: string): Promise<RawResponse> {
  const { hostname, port } = new URL(host.baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, method: "CONNECT", path });
    request.on("error", reject);
    request.on("connect", (response: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      let body = head.toString("utf8");
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        body += chunk;
      });
      socket.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers as Record<string, string>,
          body,
        }),
      );
    });
    request.end();
  });
}

function expectMethodNotAllowed(response: RawResponse, allowed: string[]): void {
  expect(response.status).toBe(405);
  expect(response.headers["x-ms-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect((response.headers.allow ?? "").split(/,\s*/).sort()).toEqual([...allowed].sort());
  expect(JSON.parse(response.body)).toEqual({
    error: { code: "MethodNotAllowed", message: expect.stringContaining("not allowed") },
  });
}

describe("a method the path does not take: 405 MethodNotAllowed with Allow", () => {
  const itemMethods = ["GET", "PUT", "PATCH", "DELETE"];

  it.each(["OPTIONS", "POST"])("answers %s through the HTTP stack", async (method) => {
    expectMethodNotAllowed(await nodeRequest(method, PROFILE), itemMethods);
  });

  // No function takes these, so the host answers them itself, with no body and no function run:
  // TRACE as Azure's host does (404); tokens Node's parser does not know, and CONNECT, with 400
  // (Kestrel would route them to its 404).
  it("leaves TRACE to the host's bare 404, as no function takes it", async () => {
    const response = await nodeRequest("TRACE", PROFILE);
    expect(response).toMatchObject({ status: 404, body: "" });
  });

  it.each(["FOO", "get", "TRACK", "M-SEARCH"])(
    "refuses the token %s in the host, bare, before any function",
    async (method) => {
      const response = await rawRequest(method, PROFILE);
      expect([400, 404]).toContain(response.status);
      expect(response.body).toBe("");
    },
  );

  it("answers CONNECT instead of dropping the connection", async () => {
    expect(await connectRequest(PROFILE)).toMatchObject({ status: 400, body: "" });
  });

  it("lists what each path takes, before asking for a key", async () => {
    expectMethodNotAllowed(await rawRequest("POST", "/health"), ["GET"]);
    expectMethodNotAllowed(await rawRequest("DELETE", "/authenticationProfiles"), ["GET"]);
    expectMethodNotAllowed(await rawRequest("GET", `${INSTANCE}/events`), ["POST"]);
  });

  it("keeps serving after all of that", async () => {
    expect((await host.request("/authenticationProfiles")).status).toBe(200);
  });
});

describe("links never come from the request's Host or X-Forwarded-Host", () => {
  const spoofed = { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };

  beforeAll(async () => {
    for (const name of ["link-a", "link-b"]) {
      const body = JSON.stringify({ authenticationProfileContent: "{}" });
      expect((await host.request(`/authenticationProfiles/${name}`, { method: "PUT", body })).status).toBe(
        201,
      );
    }
  });

  it("builds nextLink on the address the host listens on", async () => {
    const response = await nodeRequest("GET", "/authenticationProfiles?$top=1", spoofed);
    expect(response.status).toBe(200);
    const { nextLink } = JSON.parse(response.body) as { nextLink: string };
    expect(nextLink.startsWith(`${host.baseUrl}/authenticationProfiles?`)).toBe(true);
  });

  it("names the address the host listens on as the OpenAPI server", async () => {
    const response = await nodeRequest("GET", "/openapi.json", spoofed);
    expect(JSON.parse(response.body).servers).toEqual([{ url: host.baseUrl }]);
  });

  describe("with PUBLIC_BASE_URL set", () => {
    let fronted: TestHost;
    beforeAll(async () => {
      fronted = await startTestHost({ PUBLIC_BASE_URL: "https://api.contoso.example/twins/" });
      for (const name of ["front-a", "front-b"]) {
        const body = JSON.stringify({ authenticationProfileContent: "{}" });
        await fronted.request(`/authenticationProfiles/${name}`, { method: "PUT", body });
      }
    });
    afterAll(() => fronted.stop());

    it("builds nextLink and the OpenAPI server on it, path prefix included", async () => {
      const list = (await (await fronted.request("/authenticationProfiles?$top=1")).json()) as {
        nextLink: string;
      };
      const next = new URL(list.nextLink);
      expect(`${next.origin}${next.pathname}`).toBe(
        "https://api.contoso.example/twins/authenticationProfiles",
      );
      expect(next.searchParams.get("$skipToken")).toBeTruthy();
      const document = (await (await fronted.request("/openapi.json", { key: null })).json()) as {
        servers: unknown;
      };
      expect(document.servers).toEqual([{ url: "https://api.contoso.example/twins" }]);
    });
  });
});

describe("JSON that repeats a member name: 400 naming the member (RFC 7493)", () => {
  function put(path: string, body: string): Promise<Response> {
    return host.request(path, { method: "PUT", body });
  }

  it.each([
    ["a member twice", '{"conn":{"Password":"hunter2"},"conn":1}', "/conn"],
    ["a name and its escaped spelling", '{"Password":"hunter2","Pass\\u0077ord":"x"}', "/Password"],
    ["a repeat inside an array of objects", '{"a":[{"b":1},{"b":"hunter2","b":2}]}', "/a/1/b"],
  ])("refuses profile content with %s, and stores nothing", async (_label, content, pointer) => {
    const response = await put(
      "/authenticationProfiles/dup",
      JSON.stringify({ authenticationProfileContent: content }),
    );
    const error = await expectArmError(
      response,
      400,
      "InvalidRequestContent",
      "authenticationProfileContent",
    );
    expect(error.message).toContain(pointer);
    expect(JSON.stringify(error)).not.toContain("hunter2");
    expect((await host.request("/authenticationProfiles/dup")).status).toBe(404);
  });

  it("refuses a profile body that sends a field twice", async () => {
    const body =
      '{"authenticationProfileContent":"{}","authentication\\u0050rofileContent":"{\\"Password\\":\\"hunter2\\"}"}';
    const error = await expectArmError(
      await put("/authenticationProfiles/dup", body),
      400,
      "InvalidRequestContent",
    );
    expect(error.target).toBe("/authenticationProfileContent");
    expect(JSON.stringify(error)).not.toContain("hunter2");
  });

  it("refuses an endpoint body that sends a field twice", async () => {
    const body =
      '{"queuePrimaryConnectionString":"a","queueSecondaryConnectionString":"b","queuePrimaryConnectionString":"c"}';
    const response = await put(`${INSTANCE}/endpoints/dup`, body);
    await expectArmError(response, 400, "InvalidRequestContent", "/queuePrimaryConnectionString");
  });

  it("refuses an event batch with a repeat deep in an event's data", async () => {
    const batch = '[{"id":"1","source":"/s","specversion":"1.0","type":"t","data":{"x":{"y":1,"y":2}}}]';
    const response = await host.request(`${INSTANCE}/events`, {
      method: "POST",
      body: batch,
      headers: { "content-type": "application/cloudevents-batch+json" },
    });
    await expectArmError(response, 400, "InvalidRequestContent", "/0/data/x/y");
  });

  it("refuses a body with __proto__ twice, and does not let one __proto__ smuggle a field in", async () => {
    await expectArmError(
      await put("/authenticationProfiles/dup", '{"__proto__":{},"__proto__":{}}'),
      400,
      "InvalidRequestContent",
      "/__proto__",
    );
    const smuggled = await put(
      "/authenticationProfiles/dup",
      '{"__proto__":{"authenticationProfileContent":"{}"}}',
    );
    expect(smuggled.status).toBe(400);
    expect((await host.request("/authenticationProfiles/dup")).status).toBe(404);
  });
});

describe("the response head as written", () => {
  /** The header lines of one response, names spelled as sent, in the order sent. */
  async function headLines(requestText: string): Promise<{ names: string[]; raw: RawResponse }> {
    const { hostname, port } = new URL(host.baseUrl);
    const received = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.write(requestText));
      let text = "";
      socket.setEncoding("latin1");
      socket.on("data", (chunk: string) => {
        text += chunk;
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(text));
    });
    const names = received
      .slice(0, received.indexOf("\r\n\r\n"))
      .split("\r\n")
      .slice(1)
      .map((line) => line.slice(0, line.indexOf(":")));
    return { names, raw: parseRawResponse(received) };
  }

  it("sends the headers in one order and spelling, and the body's length in bytes", async () => {
    // Characters of two and three bytes: a length in characters would cut the body short.
    const content = '{"Name":"Zoë ✓"}';
    const created = await host.request("/authenticationProfiles/head-order", {
      method: "PUT",
      body: JSON.stringify({ authenticationProfileContent: content }),
    });
    expect(created.status).toBe(201);
    const { names, raw } = await headLines(
      `GET /authenticationProfiles/head-order HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\nx-functions-key: ${FUNCTION_KEY}\r\n\r\n`,
    );
    expect(raw.status).toBe(200);
    expect(names).toEqual([
      "content-type",
      "etag",
      "x-ms-correlation-request-id",
      "x-ms-request-id",
      "Content-Length",
      "Date",
      "Connection",
    ]);
    const bodyBytes = Buffer.from(raw.body, "latin1");
    expect(Number(raw.headers["content-length"])).toBe(bodyBytes.length);
    expect(JSON.parse(bodyBytes.toString("utf8")).authenticationProfileContent).toBe(content);
  });

  it("closes after the host's bare 413 for a body over its limit, before reading it", async () => {
    const { raw } = await headLines(
      `PUT /authenticationProfiles/head-large HTTP/1.1\r\nhost: 127.0.0.1\r\nx-functions-key: ${FUNCTION_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${101 * 1024 * 1024}\r\n\r\n`,
    );
    expect(raw.status).toBe(413);
    expect(raw.headers.connection).toBe("close");
  });
});
