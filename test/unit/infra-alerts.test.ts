import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * The alerts of infra/core/monitor/alerts.bicep fire on the log lines that record each poisoned or
 * dead-lettered event. Those lines are written by src/ (logLine("twin event poisoned:", ...) and the
 * like) and by the Functions host (its move of a message to <queue>-poison); the queries match them
 * by prefix, so a reworded line in src/ would silence an alert. This test reads both sides as text.
 */
const REPO = path.join(__dirname, "..", "..");
// INFRA_TEST_ROOT: check another copy of the repository's infra/ (e.g. an older one) instead.
const ROOT = process.env.INFRA_TEST_ROOT ?? REPO;
const infraFile = (file: string) => path.join(ROOT, "infra", file);
const alertsFile = infraFile("core/monitor/alerts.bicep");

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** The first argument of every logLine("...") in src/ that reports a poisoned or dead-lettered event. */
function logPrefixes(kind: "poisoned" | "dead-lettered"): string[] {
  const prefixes = new Set<string>();
  for (const file of sourceFiles(path.join(REPO, "src"))) {
    for (const m of readFileSync(file, "utf8").matchAll(/logLine\(\s*"([^"]+)"/g)) {
      const what = m[1] ?? "";
      if (new RegExp(`\\b${kind}:$`).test(what)) prefixes.add(what);
    }
  }
  return [...prefixes].sort();
}

/** The text of `var <name> = join([ '...' ... ], '\n')`, lines joined, Bicep escapes undone. */
function queryVariable(source: string, name: string): string {
  const m = new RegExp(`^var ${name} = join\\(\\s*\\[([\\s\\S]*?)\\],\\s*'\\\\n'\\s*\\)`, "m").exec(source);
  if (!m?.[1]) throw new Error(`alerts.bicep has no "var ${name} = join([...], '\\n')"`);
  return [...m[1].matchAll(/^\s*'((?:[^'\\]|\\.)*)'\s*$/gm)]
    .map((line) => (line[1] ?? "").replace(/\\'/g, "'"))
    .join("\n");
}

describe("infra: alerts on poisoned and dead-lettered events", () => {
  const alerts = readFileSync(alertsFile, "utf8");
  const mainBicep = readFileSync(infraFile("main.bicep"), "utf8");

  it("finds the log lines in src/ (the scan is not stale)", () => {
    expect(logPrefixes("poisoned").length).toBeGreaterThanOrEqual(1);
    expect(logPrefixes("dead-lettered").length).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ["poisoned", "poisonedQuery"],
    ["dead-lettered", "deadLetteredQuery"],
  ] as const)("matches every %s line of src/ by its prefix, and nothing looser", (kind, variable) => {
    const query = queryVariable(alerts, variable);
    expect(query.startsWith("traces\n")).toBe(true);
    const missing = logPrefixes(kind).filter((prefix) => !query.includes(`startswith "${prefix}"`));
    expect(missing).toEqual([]);
    // Once the prefixes are taken out, the word may not appear again: `has "poisoned"` would also
    // match the per-invocation summary `twin events: … poisoned=0 …` and fire on every invocation.
    let rest = query;
    for (const prefix of logPrefixes(kind)) rest = rest.split(`startswith "${prefix}"`).join("");
    expect(rest).not.toMatch(/poisoned|dead-lettered|deadLettered/i);
  });

  it("also fires when the host moves a message to the poison queue of TWIN_EVENTS_QUEUE", () => {
    expect(queryVariable(alerts, "poisonedQuery")).toContain(
      `message contains "Moving message to queue '\${poisonQueueName}'"`,
    );
    const module =
      /^module alerts 'core\/monitor\/alerts\.bicep' = \{[\s\S]*?^\}/m.exec(mainBicep)?.[0] ?? "";
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep (or azd) interpolation, matched as text
    expect(module).toContain("poisonQueueName: '${twinEventsQueueName}-poison'");
    expect(module).toContain("applicationInsightsName: monitoring.outputs.applicationInsightsName");
    // src/ names the poison queue the same way: `${queueName}-poison`, as the host does.
    const naming = sourceFiles(path.join(REPO, "src")).filter((file) =>
      /`\$\{\w+\}-poison`/.test(readFileSync(file, "utf8")),
    );
    expect(naming.length).toBeGreaterThanOrEqual(1);
  });

  it("queries the app's traces, none of which sampling drops", () => {
    expect(alerts).toMatch(/scopes: \[\s+applicationInsights\.id\s+\]/);
    const hostJson = JSON.parse(readFileSync(path.join(REPO, "host.json"), "utf8"));
    const sampling = hostJson.logging?.applicationInsights?.samplingSettings ?? {};
    if (sampling.isEnabled !== false) {
      expect(String(sampling.excludedTypes ?? "").split(";")).toContain("Trace");
    }
  });

  it("alerts on the first line in a window", () => {
    expect(alerts).toMatch(/timeAggregation: 'Count'\s+operator: 'GreaterThan'\s+threshold: 0\b/);
    expect(alerts).toContain("evaluationFrequency: 'PT5M'");
    expect(alerts).toContain("windowSize: 'PT5M'");
    expect(alerts.match(/^\s+query: (\w+)$/gm)?.map((line) => line.trim())).toEqual([
      "query: poisonedQuery",
      "query: deadLetteredQuery",
    ]);
  });

  it("emails an optional address: an action group only when alertEmailAddress is set", () => {
    expect(mainBicep).toMatch(/^param alertEmailAddress string = ''$/m);
    expect(mainBicep).toMatch(/^\s+alertEmailAddress: alertEmailAddress$/m);
    const parameters = JSON.parse(readFileSync(infraFile("main.parameters.json"), "utf8"));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep (or azd) interpolation, matched as text
    expect(parameters.parameters.alertEmailAddress).toEqual({ value: "${ALERT_EMAIL_ADDRESS}" });
    expect(alerts).toMatch(/^resource actionGroup '[^']+' = if \(!empty\(alertEmailAddress\)\) \{/m);
    expect(alerts).toContain("var actionGroupIds = empty(alertEmailAddress) ? [] : [actionGroup.id]");
    expect(alerts).toContain("actionGroups: actionGroupIds");
  });
});
