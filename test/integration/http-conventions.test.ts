import { expectArmError, expectHostAnswer } from "../support/arm";
import { closedPort } from "../support/closed-port";
import { MASTER_KEY, startTestHost, type TestHost } from "../support/test-host";

// The shared HTTP layer (docs/api.md), exercised once through the profile routes.
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

const profileBody = JSON.stringify({ authenticationProfileContent: '{"App_ID":"x"}' });

describe("request and correlation ids", () => {
  it("puts a request id on every response, errors included", async () => {
    const ok = await host.request("/authenticationProfiles");
    const missing = await host.request("/authenticationProfiles/absent");
    expect(ok.headers.get("x-ms-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(missing.headers.get("x-ms-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok.headers.get("x-ms-request-id")).not.toBe(missing.headers.get("x-ms-request-id"));
  });

  it("echoes a correlation id, or makes one when none or a malformed one is sent", async () => {
    const echoed = await host.request("/authenticationProfiles", {
      headers: { "x-ms-correlation-request-id": "caller-123" },
    });
    expect(echoed.headers.get("x-ms-correlation-request-id")).toBe("caller-123");
    const generated = await host.request("/authenticationProfiles");
    expect(generated.headers.get("x-ms-correlation-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const malformed = await host.request("/authenticationProfiles", {
      headers: { "x-ms-correlation-request-id": "<script>" },
    });
    expect(malformed.headers.get("x-ms-correlation-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("keys", () => {
  it("answers the host's bare 401 without a key", async () => {
    await expectHostAnswer(await host.request("/authenticationProfiles", { key: null }), 401);
  });

  it("answers the host's bare 401 with a wrong key", async () => {
    await expectHostAnswer(await host.request("/authenticationProfiles", { key: "wrong" }), 401);
  });

  it("takes the key in ?code= too", async () => {
    const response = await host.request(
      `/authenticationProfiles?code=${encodeURIComponent("test-function-key")}`,
      {
        key: null,
      },
    );
    expect(response.status).toBe(200);
  });

  it("lets the master key pass a function-level route", async () => {
    expect((await host.request("/authenticationProfiles", { key: MASTER_KEY })).status).toBe(200);
  });

  it("needs no key for /health", async () => {
    expect((await host.request("/health", { key: null })).status).toBe(200);
  });

  it("never logs the key", async () => {
    await host.request("/authenticationProfiles?code=test-function-key", { key: null });
    expect(host.logs.map((entry) => entry.message).join("\n")).not.toContain("test-function-key");
  });
});

describe("routing", () => {
  it("answers the host's bare 404 for a path no route serves", async () => {
    await expectHostAnswer(await host.request("/no/such/path"), 404);
  });

  it("answers 405 MethodNotAllowed, with Allow, for a method a route does not take", async () => {
    const response = await host.request("/authenticationProfiles/x", { method: "POST", body: profileBody });
    await expectArmError(response, 405, "MethodNotAllowed");
    expect(response.headers.get("allow")).toBe("GET, PUT, DELETE, PATCH");
  });

  it("matches the route's literal segments case-insensitively", async () => {
    expect((await host.request("/AUTHENTICATIONPROFILES")).status).toBe(200);
  });
});

describe("request bodies", () => {
  it("answers 413 for a body over 1 MiB", async () => {
    const content = JSON.stringify({ big: "x".repeat(1024 * 1024) });
    const response = await host.request("/authenticationProfiles/big", {
      method: "PUT",
      body: JSON.stringify({ authenticationProfileContent: content }),
    });
    await expectArmError(response, 413, "PayloadTooLarge");
  });

  it("answers 413 for a streamed body over 1 MiB that declares no length", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await host.request("/authenticationProfiles/big", {
      method: "PUT",
      body: stream,
      duplex: "half",
    } as RequestInit);
    await expectArmError(response, 413, "PayloadTooLarge");
  });

  it("answers 415 for a write that is not JSON", async () => {
    const response = await host.request("/authenticationProfiles/x", {
      method: "PUT",
      body: "authenticationProfileContent={}",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    await expectArmError(response, 415, "UnsupportedMediaType", "Content-Type");
  });

  // PUT takes application/json alone (a merge patch or JSON Patch is 415: test/integration/refused-inputs.test.ts).
  it("accepts application/json with parameters, in any letter case", async () => {
    for (const contentType of ["application/json; charset=utf-8", "Application/JSON"]) {
      const response = await host.request("/authenticationProfiles/typed", {
        method: "PUT",
        body: profileBody,
        headers: { "content-type": contentType },
      });
      expect(response.status).toBeLessThan(300);
    }
  });

  it.each([
    ["not JSON", "{oops"],
    ["a JSON array", "[]"],
    ["a JSON string", '"text"'],
    ["empty", ""],
  ])("answers 400 InvalidRequestContent when the body is %s", async (_label, body) => {
    const response = await host.request("/authenticationProfiles/x", { method: "PUT", body });
    await expectArmError(response, 400, "InvalidRequestContent");
  });
});

describe("hostile nesting", () => {
  it("answers 400, not 500, for a body nested 300,000 levels deep", async () => {
    const deep = `{"authenticationProfileContent":"{}","x":${"[".repeat(300_000)}${"]".repeat(300_000)}}`;
    const response = await host.request("/authenticationProfiles/deep", { method: "PUT", body: deep });
    await expectArmError(response, 400, "InvalidRequestContent");
  });

  it("answers 400, not 500, for profile content nested 300,000 levels deep", async () => {
    const content = `{"a":${"[".repeat(300_000)}${"]".repeat(300_000)}}`;
    const response = await host.request("/authenticationProfiles/deep", {
      method: "PUT",
      body: JSON.stringify({ authenticationProfileContent: content }),
    });
    await expectArmError(response, 400, "InvalidRequestContent", "authenticationProfileContent");
  });
});

describe("api-version", () => {
  it("accepts the supported version or none", async () => {
    expect((await host.request("/authenticationProfiles?api-version=2026-11-01")).status).toBe(200);
    expect((await host.request("/authenticationProfiles")).status).toBe(200);
  });

  it.each(["2023-04-01-preview", "2026-11-02", "latest", ""])(
    "answers 400 InvalidApiVersionParameter for '%s', listing the supported versions",
    async (version) => {
      const response = await host.request(`/authenticationProfiles/x?api-version=${version}`);
      const error = await expectArmError(response, 400, "InvalidApiVersionParameter", "api-version");
      expect(error.message).toContain("2026-11-01");
    },
  );
});

describe("paging", () => {
  const names = ["page-a", "page-b", "page-c", "page-d", "page-e"];
  let pagingHost: TestHost;
  beforeAll(async () => {
    pagingHost = await startTestHost();
    for (const name of names) {
      const response = await pagingHost.request(`/authenticationProfiles/${name}`, {
        method: "PUT",
        body: profileBody,
      });
      expect(response.status).toBe(201);
    }
  });
  afterAll(() => pagingHost.stop());

  it("follows nextLink across pages until it is absent, seeing every item once", async () => {
    const seen: string[] = [];
    let url: string | undefined =
      `${pagingHost.baseUrl}/authenticationProfiles?$top=2&code=test-function-key`;
    let pages = 0;
    while (url !== undefined) {
      const response = await fetch(url, { headers: { "x-functions-key": "test-function-key" } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { value: { id: string }[]; nextLink?: string };
      expect(body.value.length).toBeLessThanOrEqual(2);
      seen.push(...body.value.map((item) => item.id));
      if (body.nextLink !== undefined) {
        expect(body.nextLink.startsWith(`${pagingHost.baseUrl}/authenticationProfiles?`)).toBe(true);
        // The key must not travel in links a client may log or share.
        expect(body.nextLink).not.toContain("code=");
      }
      url = body.nextLink;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(names);
  });

  it("returns everything on one page by default, with no nextLink", async () => {
    const body = (await (await pagingHost.request("/authenticationProfiles")).json()) as Record<
      string,
      unknown
    >;
    expect((body.value as unknown[]).length).toBe(5);
    expect(body).not.toHaveProperty("nextLink");
  });

  it.each(["0", "1001", "abc", "-1", "2.5"])("answers 400 for $top=%s", async (top) => {
    await expectArmError(
      await pagingHost.request(`/authenticationProfiles?$top=${top}`),
      400,
      "InvalidRequestContent",
      "$top",
    );
  });

  it.each(["not-a-token", '{"x":1}', '"abc"', "[]"])(
    "answers 400 for a $skipToken it did not issue: %s",
    async (token) => {
      const skipToken = Buffer.from(token).toString("base64url");
      const response = await pagingHost.request(`/authenticationProfiles?$skipToken=${skipToken}`);
      await expectArmError(response, 400, "InvalidRequestContent", "$skipToken");
    },
  );
});

describe("an unreachable data store", () => {
  let downHost: TestHost;
  beforeAll(async () => {
    downHost = await startTestHost(
      { COSMOS_ENDPOINT: `https://127.0.0.1:${await closedPort()}/` },
      undefined,
      {
        createContainers: false,
      },
    );
  });
  afterAll(() => downHost.stop());

  it("answers 503 ServiceUnavailable with Retry-After", async () => {
    const response = await downHost.request("/authenticationProfiles/x");
    await expectArmError(response, 503, "ServiceUnavailable");
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("reports the dependency as unavailable in /health with 503", async () => {
    const response = await downHost.request("/health", { key: null });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBeTruthy();
    expect(await response.json()).toEqual({
      status: "unavailable",
      checks: { cosmos: "unavailable", storage: "ok" },
    });
  });
});
