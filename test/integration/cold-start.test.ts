import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { LOAD_SETTINGS } from "../support/load-settings";

// A new Functions instance loads every entry point before its first invocation: the Azure SDKs
// load on first use (src/services.ts), so that load stays small. Each check runs the built code
// (global setup builds dist/) in a fresh node process and looks at which packages it loaded.
const ROOT = path.join(__dirname, "..", "..");
const DIST = path.join(ROOT, "dist");

const settings = LOAD_SETTINGS;
/** Callers with Entra ID tokens, as infra/ deploys. */
const entra = {
  AUTH_MODE: "entra",
  AUTH_AUTHORITY: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
  AUTH_AUDIENCE: "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
};

const SDKS = [
  "@azure/cosmos",
  "@azure/identity",
  "@azure/monitor-opentelemetry-exporter",
  "@azure/service-bus",
  "@azure/storage-blob",
  "@azure/storage-queue",
];

/** Runs `script` (CommonJS, `dist` in scope) in a fresh node; the SDKs of SDKS it had loaded at the end. */
function sdksLoadedBy(script: string, env: Record<string, string> = settings): string[] {
  const probe = `
const dist = ${JSON.stringify(DIST)};
(async () => {
${script}
})().then(() => {
  const loaded = Object.keys(require.cache);
  process.stdout.write(JSON.stringify(${JSON.stringify(SDKS)}.filter((sdk) =>
    loaded.some((file) => file.includes("/node_modules/" + sdk + "/")))));
  process.exit(0);
});`;
  const { APPLICATIONINSIGHTS_CONNECTION_STRING: _off, ...inherited } = process.env;
  const out = execFileSync(process.execPath, ["-e", probe], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return JSON.parse(out) as string[];
}

const LOAD_ENTRIES = `
for (const file of require("node:fs").readdirSync(dist + "/functions").filter((name) => name.endsWith(".js"))) {
  require(dist + "/functions/" + file);
}`;

const SERVICES = `
const { createServices, disposeServices } = require(dist + "/src/services");
const services = createServices(require(dist + "/src/config").loadConfig());`;

/** The product's modules (dist/src/...) `script` had loaded, relative to dist/src. */
function productModulesLoadedBy(script: string): string[] {
  const probe = `const dist = ${JSON.stringify(DIST)};
${script}
process.stdout.write(JSON.stringify(Object.keys(require.cache)
  .filter((file) => file.startsWith(dist + "/src/")).map((file) => file.slice(dist.length + 5))));`;
  const out = execFileSync(process.execPath, ["-e", probe], {
    cwd: ROOT,
    env: { ...process.env, ...settings },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  return JSON.parse(out) as string[];
}

/** What only the routes' handlers need: their modules and the request schemas. */
const HANDLERS = /^(http\/routes\/.*|.*-schema)\.js$/;

describe("cold start", () => {
  it("loading every entry point loads the route table's rows but leaves their handlers (zod schemas) for the first request", () => {
    const loaded = productModulesLoadedBy(LOAD_ENTRIES);
    expect(loaded).toContain("triggers/routes.js");
    expect(loaded.filter((file) => HANDLERS.test(file))).toEqual([]);
    // Nor the deferral of a first deployment, whose key is pending, with the queue message's schemas.
    expect(loaded).not.toContain("delivery/secrets-pending-deferral.js");
    expect(loaded).not.toContain("events/queue-message.js");
    // The probe sees the handlers when a row loads its own: that row's module, no other.
    const withProfiles = productModulesLoadedBy(
      `${LOAD_ENTRIES} require(dist + "/src/triggers/routes").routeTable.find((row) => row.name === "authenticationProfiles-get").load();`,
    );
    expect(withProfiles).toEqual(
      expect.arrayContaining(["http/routes/profile-routes.js", "profiles/profile-schema.js"]),
    );
    expect(withProfiles).not.toContain("http/routes/endpoint-routes.js");
  });

  it("loading every entry point loads none of the Azure SDKs but @azure/functions", () => {
    expect(sdksLoadedBy(LOAD_ENTRIES)).toEqual([]);
  });

  it("nor with identity-based settings and Entra ID tokens, as in Azure", () => {
    const { COSMOS_KEY: _key, AzureWebJobsStorage: _storage, ...identity } = settings;
    expect(
      sdksLoadedBy(LOAD_ENTRIES, { ...identity, ...entra, AzureWebJobsStorage__accountName: "twinsstorage" }),
    ).toEqual([]);
  });

  it("an HTTP request under Entra ID loads its token validator and authorizer without another Azure SDK", () => {
    expect(
      sdksLoadedBy(`${SERVICES} services.tokens; services.authorizer;`, { ...settings, ...entra }),
    ).toEqual([]);
  });

  it("with Application Insights set, the metrics exporter waits for the queue function's first invocation", () => {
    const insights = {
      ...settings,
      APPLICATIONINSIGHTS_CONNECTION_STRING: "InstrumentationKey=00000000-0000-0000-0000-000000000000",
    };
    expect(sdksLoadedBy(LOAD_ENTRIES, insights)).toEqual([]);
    expect(
      sdksLoadedBy(`require(dist + "/functions/lib/telemetry").startAzureMonitorOnce();`, insights),
    ).toEqual(["@azure/monitor-opentelemetry-exporter"]);
  });

  it("an HTTP request's services load the Cosmos DB SDK only", () => {
    expect(sdksLoadedBy(`${SERVICES} services.profiles; services.endpoints; services.assessments;`)).toEqual([
      "@azure/cosmos",
    ]);
  });

  it("ingest loads the queue SDK; delivery the Service Bus and blob SDKs too", () => {
    expect(sdksLoadedBy(`${SERVICES} services.eventPublisher;`)).toEqual(["@azure/storage-queue"]);
    expect(sdksLoadedBy(`${SERVICES} services.delivery;`)).toEqual([
      "@azure/cosmos",
      "@azure/service-bus",
      "@azure/storage-blob",
      "@azure/storage-queue",
    ]);
  });

  it("disposing of services never used loads nothing", () => {
    expect(sdksLoadedBy(`${SERVICES} await disposeServices(services);`)).toEqual([]);
  });

  it("a part is made once: every read returns the same object", () => {
    expect(
      sdksLoadedBy(`${SERVICES}
if (services.delivery !== services.delivery || services.senders !== services.senders) throw new Error("made twice");
await disposeServices(services);`),
    ).toEqual(["@azure/cosmos", "@azure/service-bus", "@azure/storage-blob", "@azure/storage-queue"]);
  });
});
