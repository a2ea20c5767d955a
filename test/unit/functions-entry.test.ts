import { routes } from "../../src/http/routes";

// functions/http.ts is what the Functions worker loads: it must register the whole route table
// and refuse to start on a bad setting, naming it.
const validEnv = {
  COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
  COSMOS_KEY: "key",
  AzureWebJobsStorage: "UseDevelopmentStorage=true",
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
};

function loadEntry(env: Record<string, string>): {
  registered: { name: string; options: Record<string, unknown> }[];
} {
  const saved = { ...process.env };
  const registered: { name: string; options: Record<string, unknown> }[] = [];
  try {
    for (const key of Object.keys(validEnv)) delete process.env[key];
    Object.assign(process.env, env);
    jest.isolateModules(() => {
      const functions = require("@azure/functions") as typeof import("@azure/functions");
      jest.spyOn(functions.app, "http").mockImplementation((name, options) => {
        registered.push({ name, options: options as unknown as Record<string, unknown> });
      });
      require("../../functions/http");
    });
  } finally {
    process.env = saved;
  }
  return { registered };
}

describe("functions/http entry point", () => {
  it("registers every route of the table with its methods, template and auth level", () => {
    const { registered } = loadEntry(validEnv);
    expect(registered.map((entry) => entry.name)).toEqual(routes.map((route) => route.name));
    for (const route of routes) {
      const entry = registered.find((candidate) => candidate.name === route.name);
      expect(entry?.options).toMatchObject({
        methods: route.methods,
        route: route.route,
        authLevel: route.authLevel,
      });
    }
  });

  it("stops at load with an error naming a missing setting", () => {
    const { COSMOS_ENDPOINT: _omitted, ...withoutEndpoint } = validEnv;
    expect(() => loadEntry(withoutEndpoint)).toThrow(/COSMOS_ENDPOINT/);
  });
});
