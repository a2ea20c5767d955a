import { readFileSync } from "node:fs";
import * as path from "node:path";
import {
  admitted,
  billedBytes,
  keptShare,
  loggingSettings,
  requestRow,
  traceRow,
} from "../../bench/telemetry-model";

const hostJson = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "host.json"), "utf8"));
const settings = loggingSettings(hostJson);

describe("what host.json lets through to Application Insights", () => {
  it("takes the longest category prefix at a dot, else default, else Information", () => {
    const rules = loggingSettings({
      logging: { logLevel: { default: "Error", Function: "Warning", "Function.a.User": "Debug" } },
    });
    expect(admitted(rules, "Function.a.User", "Debug")).toBe(true);
    expect(admitted(rules, "Function.b.User", "Information")).toBe(false);
    expect(admitted(rules, "Function.b.User", "Warning")).toBe(true);
    expect(admitted(rules, "Functions", "Warning")).toBe(false); // not at a dot: default
    expect(admitted(loggingSettings({}), "Host.Results", "Information")).toBe(true);
    expect(admitted(loggingSettings({ logging: { logLevel: { default: "None" } } }), "x", "Critical")).toBe(
      false,
    );
  });

  it("keeps every failure the service logs and the host's poison-queue move, and no success line", () => {
    for (const level of ["Warning", "Error", "Critical"] as const) {
      expect(admitted(settings, "Function.twinEvents-deliver.User", level)).toBe(true);
      expect(admitted(settings, "Function.twinEvents-ingest", level)).toBe(true);
      // The WebJobs queue processor logs "Moving message to queue '…-poison'" as a warning.
      expect(admitted(settings, "Host.Triggers.Queue", level)).toBe(true);
    }
    for (const level of ["Debug", "Information"] as const) {
      expect(admitted(settings, "Function.twinEvents-deliver.User", level)).toBe(false);
      // The host's "Executing …" and "Executed … (Succeeded …)" lines.
      expect(admitted(settings, "Function.twinEvents-deliver", level)).toBe(false);
    }
    // Requests (sampled) and the host's per-function counts (never sampled) are kept.
    expect(admitted(settings, "Host.Results", "Information")).toBe(true);
    expect(admitted(settings, "Host.Aggregator", "Information")).toBe(true);
  });

  it("samples requests and never traces or exceptions, at no more than maxSamplingPercentage", () => {
    expect(keptShare(settings, "Trace", 1000)).toBe(1);
    expect(keptShare(settings, "Exception", 1000)).toBe(1);
    expect(keptShare(settings, "Metric", 1000)).toBe(1);
    const { maxTelemetryItemsPerSecond, maxSamplingPercentage } = settings.sampling;
    expect(keptShare(settings, "Request", 1)).toBe(maxSamplingPercentage / 100);
    expect(keptShare(settings, "Request", 1000)).toBeCloseTo(maxTelemetryItemsPerSecond / 1000);
    expect(keptShare(loggingSettings({}), "Request", 10)).toBe(1); // the host's defaults: 20 a second
  });

  it("bills a row by its values, not its column names, and a longer message by its length", () => {
    expect(billedBytes({ a: "xyz", long_column_name: "", n: 12, o: { k: "v" } })).toBe(3 + 2 + 9);
    const short = billedBytes(traceRow("f", "Function.f.User", "Warning", "x"));
    expect(billedBytes(traceRow("f", "Function.f.User", "Warning", "x".repeat(101)))).toBe(short + 200);
    const row = billedBytes(requestRow("twinEvents-ingest", "https://a.azurewebsites.net/x/events", 202, 7));
    expect(row).toBeGreaterThan(500);
    expect(row).toBeLessThan(2000);
  });
});
