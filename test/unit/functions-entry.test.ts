import { queueFunctions } from "../../src/events/queue-functions";
import { routes } from "../../src/http/routes";

// functions/*.ts is what the Functions worker loads: it must register the whole route table and
// every queue function, and refuse to start on a bad setting, naming it.
const validEnv = {
  COSMOS_ENDPOINT: "https://127.0.0.1:8081/",
  COSMOS_KEY: "key",
  AzureWebJobsStorage: "UseDevelopmentStorage=true",
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
};

interface Registration {
  kind: "http" | "storageQueue";
  name: string;
  options: Record<string, unknown>;
}

function loadEntry(env: Record<string, string>): { registered: Registration[] } {
  const saved = { ...process.env };
  const registered: Registration[] = [];
  try {
    for (const key of Object.keys(validEnv)) delete process.env[key];
    Object.assign(process.env, env);
    jest.isolateModules(() => {
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
      require("../../functions/http");
      require("../../functions/twin-events");
    });
  } finally {
    process.env = saved;
  }
  return { registered };
}

describe("functions/http entry point", () => {
  it("registers every route of the table with its methods, template and auth level", () => {
    const { registered } = loadEntry(validEnv);
    const http = registered.filter((entry) => entry.kind === "http");
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

  it("registers every queue function on its queue and connection", () => {
    const { registered } = loadEntry({ ...validEnv, TWIN_EVENTS_QUEUE: "custom-events" });
    const queues = registered.filter((entry) => entry.kind === "storageQueue");
    expect(queues.map((entry) => entry.name)).toEqual(queueFunctions.map((definition) => definition.name));
    expect(queues[0]?.options).toMatchObject({
      queueName: "custom-events",
      connection: "AzureWebJobsStorage",
    });
  });

  it("stops at load with an error naming a missing setting", () => {
    const { COSMOS_ENDPOINT: _omitted, ...withoutEndpoint } = validEnv;
    expect(() => loadEntry(withoutEndpoint)).toThrow(/COSMOS_ENDPOINT/);
  });
});
