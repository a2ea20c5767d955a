import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { HttpRequest, type HttpResponseInit, InvocationContext } from "@azure/functions";
import { loadConfig } from "../../src/config";
import { methodsOf } from "../../src/http/method-not-allowed";
import { withHttpConventions } from "../../src/http/with-conventions";
import { createServices } from "../../src/services";
import { queueFunctions } from "../../src/triggers/queue-functions";
import { routeDefinitions } from "../../src/triggers/routes";

const routes = routeDefinitions();

// The built entry points (package.json "main", what the Functions worker loads; global setup builds
// them) must register the whole route table and every queue function with @azure/functions, and
// refuse to start on a bad setting, naming it.
const ROOT = path.join(__dirname, "..", "..");

/** The files package.json's "main" glob names, e.g. dist/functions/*.js. */
function entryPoints(): string[] {
  const main = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { main: string }).main;
  const directory = path.join(ROOT, path.dirname(main));
  const pattern = new RegExp(`^${path.basename(main).replace(".", "\\.").replace("*", ".*")}$`);
  return readdirSync(directory)
    .filter((file) => pattern.test(file))
    .map((file) => path.join(directory, file));
}
const validEnv = {
  COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
  COSMOS_KEY: "key",
  AzureWebJobsStorage: "UseDevelopmentStorage=true",
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  AUTH_MODE: "keys",
};
const entraEnv = {
  ...validEnv,
  AUTH_MODE: "entra",
  AUTH_AUTHORITY: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
  AUTH_AUDIENCE: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
};

interface Registration {
  kind: "http" | "storageQueue";
  name: string;
  options: Record<string, unknown>;
}

/** Requires every entry point, noting what it registers with @azure/functions. */
function requireEntries(registered: Registration[]): void {
  const functions = require("@azure/functions") as typeof import("@azure/functions");
  jest.spyOn(functions.app, "http").mockImplementation((name, options) => {
    registered.push({ kind: "http", name, options: options as unknown as Record<string, unknown> });
  });
  jest.spyOn(functions.app, "storageQueue").mockImplementation((name, options) => {
    registered.push({
      kind: "storageQueue",
      name,
      options: options as unknown as Record<string, unknown>,
    });
  });
  for (const entry of entryPoints()) require(entry);
}

function setEnv(env: Record<string, string>): void {
  for (const key of Object.keys(validEnv)) delete process.env[key];
  Object.assign(process.env, env);
}

function loadEntry(env: Record<string, string>): { registered: Registration[] } {
  const saved = { ...process.env };
  const registered: Registration[] = [];
  try {
    setEnv(env);
    jest.isolateModules(() => requireEntries(registered));
  } finally {
    process.env = saved;
  }
  return { registered };
}

/**
 * Loads the entry points and runs `use` with what they registered, in one module registry (as one
 * Node process has), so that what a handler requires later is the modules the entry points loaded.
 */
async function withEntry(env: Record<string, string>, use: (registered: Registration[]) => Promise<void>) {
  const saved = { ...process.env };
  try {
    setEnv(env);
    await jest.isolateModulesAsync(async () => {
      const registered: Registration[] = [];
      requireEntries(registered);
      await use(registered);
    });
  } finally {
    process.env = saved;
  }
}

describe("the built entry points", () => {
  it("are what package.json main names: one file per kind of trigger", () => {
    expect(
      entryPoints()
        .map((file) => path.basename(file))
        .sort(),
    ).toEqual(["http.js", "twin-events.js"]);
  });

  it("load with identity-based settings, no keys and Entra ID tokens, as in Azure", () => {
    const { COSMOS_KEY: _key, AzureWebJobsStorage: _storage, ...identity } = entraEnv;
    const { registered } = loadEntry({ ...identity, AzureWebJobsStorage__accountName: "twinsstorage" });
    const templates = new Set(routes.map((route) => route.route));
    expect(registered.length).toBe(routes.length + templates.size + queueFunctions.length);
  });

  it("registers every route anonymous at the host under AUTH_MODE=entra: the app checks the token", () => {
    const { registered } = loadEntry(entraEnv);
    const http = registered.filter((entry) => entry.kind === "http");
    expect(http.length).toBeGreaterThan(routes.length);
    for (const entry of http)
      expect({ name: entry.name, level: entry.options.authLevel }).toEqual({
        name: entry.name,
        level: "anonymous",
      });
  });

  it("stops at load under AUTH_MODE=entra without an authority, naming it", () => {
    const { AUTH_AUTHORITY: _omitted, ...withoutAuthority } = entraEnv;
    expect(() => loadEntry(withoutAuthority)).toThrow(/AUTH_AUTHORITY/);
  });

  it("registers every route of the table with its methods, template and key level under AUTH_MODE=keys", () => {
    const { registered } = loadEntry(validEnv);
    const http = registered.filter(
      (entry) => entry.kind === "http" && !entry.name.endsWith("-methodNotAllowed"),
    );
    expect(http.map((entry) => entry.name)).toEqual(routes.map((route) => route.name));
    for (const route of routes) {
      const entry = registered.find((candidate) => candidate.name === route.name);
      expect(entry?.options).toMatchObject({
        methods: route.methods,
        route: route.route,
        authLevel: route.authLevel,
      });
    }
  });

  describe("a route's handler, the route table loaded with the first request", () => {
    type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;
    const PROFILE = "https://twins.azurewebsites.net/authenticationProfiles/bad!name?api-version=2026-11-01";
    const requests: Record<string, () => HttpRequest> = {
      "authenticationProfiles-get": () =>
        new HttpRequest({ method: "GET", url: PROFILE, params: { authenticationProfileName: "bad!name" } }),
      "authenticationProfiles-put": () =>
        new HttpRequest({
          method: "PUT",
          url: PROFILE.replace("bad!name", "good"),
          params: { authenticationProfileName: "good" },
          headers: { "content-type": "application/json" },
          body: { string: JSON.stringify({ authenticationProfileContent: 5, extra: true }) },
        }),
    };
    /** What a response says, less the ids made fresh for each request. */
    const said = (response: HttpResponseInit) => {
      const {
        "x-ms-request-id": _id,
        "x-ms-correlation-request-id": _correlation,
        ...headers
      } = response.headers as Record<string, string>;
      return { status: response.status, headers, jsonBody: response.jsonBody };
    };

    it("answers as the table's route does, word for word (400s before any backing service)", async () => {
      const services = createServices(loadConfig(validEnv));
      const expected: Record<string, ReturnType<typeof said>> = {};
      for (const [name, request] of Object.entries(requests)) {
        const route = routes.find((candidate) => candidate.name === name);
        if (route === undefined) throw new Error(name);
        expected[name] = said(
          await withHttpConventions(route, () => services)(request(), new InvocationContext()),
        );
        expect(expected[name]?.status).toBe(400);
      }
      await withEntry(validEnv, async (registered) => {
        for (const [name, request] of Object.entries(requests)) {
          const handler = registered.find((entry) => entry.name === name)?.options.handler as Handler;
          expect(said(await handler(request(), new InvocationContext()))).toEqual(expected[name]);
          // The same handler answers again the same way, the table now loaded.
          expect(said(await handler(request(), new InvocationContext()))).toEqual(expected[name]);
        }
      });
    });
  });

  describe("405 for the methods a route template does not take", () => {
    // In Azure the host answers a method no function registered with a bare 404
    // (Azure/azure-functions-host#10098): each template gets an anonymous companion answering 405.
    const answerable = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    const companions = () =>
      loadEntry(validEnv).registered.filter((entry) => entry.name.endsWith("-methodNotAllowed"));

    it("registers one companion per template, for every other method a Fetch Request can carry", () => {
      const templates = [...new Set(routes.map((route) => route.route))];
      const registered = companions();
      expect(registered.map((entry) => entry.options.route)).toEqual(templates);
      for (const entry of registered) {
        const taken: string[] = methodsOf(routes.filter((route) => route.route === entry.options.route));
        expect(entry.options).toMatchObject({ authLevel: "anonymous" });
        expect([...(entry.options.methods as string[]), ...taken].sort()).toEqual([...answerable].sort());
        expect(entry.options.methods).not.toContain("TRACE");
      }
    });

    it("answers 405 in the error shape, with Allow and a request id", async () => {
      const companion = companions().find(
        (entry) => entry.options.route === "authenticationProfiles/{authenticationProfileName}",
      );
      const handler = companion?.options.handler as (
        request: HttpRequest,
        context: InvocationContext,
      ) => Promise<HttpResponseInit>;
      const response = await handler(
        new HttpRequest({ method: "POST", url: "https://twins.azurewebsites.net/authenticationProfiles/a" }),
        new InvocationContext(),
      );
      const headers = response.headers as Record<string, string>;
      expect(response.status).toBe(405);
      expect(headers.allow?.split(", ").sort()).toEqual(["DELETE", "GET", "PATCH", "PUT"]);
      expect(headers["x-ms-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.jsonBody).toEqual({
        error: { code: "MethodNotAllowed", message: expect.stringContaining("POST") },
      });
    });

    it("is exact: no two templates of the table match the same path", () => {
      const segments = (template: string) =>
        template.split("/").map((segment) => (segment.startsWith("{") ? undefined : segment.toLowerCase()));
      const overlap = (a: string, b: string) => {
        const [left, right] = [segments(a), segments(b)];
        return (
          left.length === right.length &&
          left.every((segment, i) => segment === undefined || right[i] === undefined || segment === right[i])
        );
      };
      const templates = [...new Set(routes.map((route) => route.route))];
      const overlapping = templates.flatMap((a, i) =>
        templates
          .slice(i + 1)
          .filter((b) => overlap(a, b))
          .map((b) => `${a} ~ ${b}`),
      );
      expect(overlapping).toEqual([]);
      expect(overlap("things/{name}", "things/special")).toBe(true);
    });
  });

  it("registers every queue function on its queue and connection", () => {
    const { registered } = loadEntry({ ...validEnv, TWIN_EVENTS_QUEUE: "custom-events" });
    const queues = registered.filter((entry) => entry.kind === "storageQueue");
    expect(queues.map((entry) => entry.name)).toEqual(queueFunctions.map((definition) => definition.name));
    expect(queues[0]?.options).toMatchObject({
      queueName: "custom-events",
      connection: "AzureWebJobsStorage",
    });
  });

  describe("with SECRETS_ENCRYPTION_KEY still the Key Vault reference (a first deployment)", () => {
    const reference =
      "@Microsoft.KeyVault(SecretUri=https://kv-abc123.vault.azure.net/secrets/secrets-encryption-key)";
    const { COSMOS_KEY: _key, AzureWebJobsStorage: _storage, ...identity } = entraEnv;
    const azureLike = {
      ...identity,
      AzureWebJobsStorage__queueServiceUri: "https://sttwins.queue.core.usgovcloudapi.net/",
      SECRETS_ENCRYPTION_KEY: reference,
    };

    it("loads, registering every function, /health included", () => {
      const { registered } = loadEntry(azureLike);
      const templates = new Set(routes.map((route) => route.route));
      expect(registered.length).toBe(routes.length + templates.size + queueFunctions.length);
      expect(registered.map((entry) => entry.name)).toEqual(
        expect.arrayContaining(["health", "twinEvents-deliver"]),
      );
    });

    it("still stops at load on any other bad setting, naming it and not the key", () => {
      let message = "";
      try {
        loadEntry({ ...azureLike, AUTH_CACHE_SECONDS: "301" });
      } catch (error) {
        message = String(error);
      }
      expect(message).toMatch(/AUTH_CACHE_SECONDS/);
      expect(message).not.toMatch(/SECRETS_ENCRYPTION_KEY|vault/);
    });
  });

  it("stops at load with an error naming a missing setting", () => {
    const { COSMOS_ENDPOINT: _omitted, ...withoutEndpoint } = validEnv;
    expect(() => loadEntry(withoutEndpoint)).toThrow(/COSMOS_ENDPOINT/);
  });
});
