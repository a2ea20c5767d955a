import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";

// The metrics exporter (functions/lib/telemetry.ts), over the wire: a child started with an
// Application Insights connection string whose ingestion endpoint is a local server records
// delivery metrics, and what reaches the server is Application Insights' track call with them.
// The built code runs (global setup builds dist/), in a child of its own: the exporter registers
// a global meter provider and timers that would outlive a test in this process. The exporter
// speaks HTTPS only: the server uses the Cosmos DB server package's self-signed certificate, which
// the child (and only it) is told not to verify.
const ROOT = path.join(__dirname, "..", "..");
const DIST = path.join(ROOT, "dist");
const CERTIFICATES = path.join(ROOT, "node_modules", "@vercel", "cosmosdb-server");
jest.setTimeout(30_000);

interface Envelope {
  name: string;
  iKey: string;
  tags?: Record<string, string>;
  data: {
    baseType: string;
    baseData: { metrics: { name: string; value: number }[]; properties?: Record<string, string> };
  };
}

const received: { url: string; envelopes: Envelope[] }[] = [];
let server: https.Server;
let child: ChildProcess | undefined;

beforeAll(async () => {
  const tls = {
    cert: readFileSync(path.join(CERTIFICATES, "cert.pem")),
    key: readFileSync(path.join(CERTIFICATES, "key.pem")),
  };
  server = https.createServer(tls, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const text = (request.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body).toString(
        "utf8",
      );
      received.push({ url: request.url ?? "", envelopes: JSON.parse(text) as Envelope[] });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ itemsReceived: 1, itemsAccepted: 1, errors: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  child?.kill("SIGKILL");
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const IKEY = "00000000-0000-0000-0000-0000000000a1";

it("sends delivery metrics to the connection string's ingestion endpoint, as the app's cloud role", async () => {
  const { port } = server.address() as AddressInfo;
  const script = `
const telemetry = require(${JSON.stringify(path.join(DIST, "functions", "lib", "telemetry.js"))});
if (!telemetry.startAzureMonitor()) throw new Error("not started");
const { countEvents, endpointAttributes } = require(${JSON.stringify(path.join(DIST, "src", "delivery", "delivery-metrics.js"))});
countEvents("delivered", 3, endpointAttributes("instance-1", "endpoint-1"));
setInterval(() => {}, 1000);`;
  const { APPLICATIONINSIGHTS_AUTHENTICATION_STRING: _identity, ...inherited } = process.env;
  child = spawn(process.execPath, ["-e", script], {
    env: {
      ...inherited,
      APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=${IKEY};IngestionEndpoint=https://127.0.0.1:${port}/`,
      OTEL_METRIC_EXPORT_INTERVAL: "200",
      WEBSITE_SITE_NAME: "func-twins-test",
      // The exporter's own usage metrics would go to Microsoft's endpoint, not to this server.
      APPLICATION_INSIGHTS_NO_STATSBEAT: "true",
      APPLICATIONINSIGHTS_SDKSTATS_DISABLED: "true",
      NODE_TLS_REJECT_UNAUTHORIZED: "0",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));

  const delivered = await new Promise<Envelope>((resolve, reject) => {
    const deadline = setTimeout(
      () => reject(new Error(`no metric within 20 s; child said: ${stderr}`)),
      20_000,
    );
    const poll = setInterval(() => {
      const envelope = received
        .flatMap((call) => call.envelopes)
        .find((item) =>
          item.data.baseData.metrics?.some((metric) => metric.name === "twin_events.delivered"),
        );
      if (envelope) {
        clearTimeout(deadline);
        clearInterval(poll);
        resolve(envelope);
      }
    }, 50);
  });

  expect(received[0]?.url).toBe("/v2.1/track");
  expect(delivered.iKey).toBe(IKEY);
  expect(delivered.data.baseType).toBe("MetricData");
  expect(delivered.data.baseData.metrics).toEqual([
    expect.objectContaining({ name: "twin_events.delivered", value: 3 }),
  ]);
  expect(delivered.data.baseData.properties).toEqual({
    "twins.instance_id": "instance-1",
    "twins.endpoint_name": "endpoint-1",
  });
  expect(delivered.tags?.["ai.cloud.role"]).toBe("func-twins-test");
});
