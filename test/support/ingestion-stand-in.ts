import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { loadOrCreateLocalTls } from "../../dev/local-tls";

/**
 * Application Insights' ingestion (Breeze) as Azure Monitor's exporter sees it: an HTTPS server on
 * loopback answering the track call, `POST {IngestionEndpoint}v2.1/track` with a JSON array of
 * envelopes, as Breeze does (200, `{ itemsReceived, itemsAccepted, errors }`), and keeping what
 * it received. HTTPS because the exporter upgrades an `http://` ingestion endpoint to `https://`;
 * the local certificate, which test workers and the hosts they start trust (NODE_EXTRA_CA_CERTS,
 * see global-setup.ts), so the exporter verifies it as it would Azure's.
 */
export interface TrackCall {
  method: string;
  url: string;
  /** The request's Content-Encoding, if any (the body is decoded either way). */
  encoding: string | undefined;
  envelopes: Envelope[];
}

export interface Envelope {
  name: string;
  iKey: string;
  time: string;
  tags?: Record<string, string>;
  data: { baseType: string; baseData: Record<string, unknown> };
}

/** One metric data point of a MetricData envelope, with the envelope's properties (the OpenTelemetry attributes). */
export interface MetricPoint {
  name: string;
  /** A sum's or gauge's value; a histogram's sum. */
  value: number;
  /** 1 for a sum or gauge; a histogram's count. */
  count?: number;
  min?: number;
  max?: number;
  properties: Record<string, string>;
}

export interface IngestionStandIn {
  /** `InstrumentationKey=…;IngestionEndpoint=https://127.0.0.1:{port}/` */
  connectionString: string;
  calls: TrackCall[];
  /** The data points of every MetricData envelope received so far, in order. */
  metricPoints(): MetricPoint[];
  close(): Promise<void>;
}

export const TEST_INSTRUMENTATION_KEY = "00000000-0000-0000-0000-000000000000";

export async function startIngestionStandIn(): Promise<IngestionStandIn> {
  const { cert, key } = await loadOrCreateLocalTls();
  const calls: TrackCall[] = [];
  const server = https.createServer({ cert, key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const encoding = request.headers["content-encoding"];
      let envelopes: Envelope[] = [];
      try {
        const body = Buffer.concat(chunks);
        envelopes = JSON.parse((encoding === "gzip" ? gunzipSync(body) : body).toString("utf8"));
      } catch {
        // Kept as a call with no envelopes; answered as Breeze answers what it cannot read.
      }
      calls.push({ method: request.method ?? "", url: request.url ?? "", encoding, envelopes });
      const track = request.method === "POST" && request.url === "/v2.1/track";
      response.writeHead(track ? 200 : 404, { "content-type": "application/json" });
      const n = envelopes.length;
      response.end(JSON.stringify({ itemsReceived: n, itemsAccepted: track ? n : 0, errors: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    connectionString: `InstrumentationKey=${TEST_INSTRUMENTATION_KEY};IngestionEndpoint=https://127.0.0.1:${port}/`,
    calls,
    metricPoints() {
      return calls
        .flatMap((call) => call.envelopes)
        .filter((envelope) => envelope.data?.baseType === "MetricData")
        .flatMap((envelope) => {
          const { metrics = [], properties = {} } = envelope.data.baseData as {
            metrics?: Omit<MetricPoint, "properties">[];
            properties?: Record<string, string>;
          };
          return metrics.map((metric) => ({ ...metric, properties }));
        });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
