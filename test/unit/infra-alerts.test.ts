import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { compiledInfra } from "../support/compiled-infra";

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
      // The measured rules (5xx rate, delivery lag): asserted on the compiled JSON below.
      "query: serverErrorRateQuery",
      "query: deliveryLagQuery",
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

/**
 * The alerts an operator expects besides poisoned and dead-lettered events (issue 42): the 5xx rate,
 * an availability test of /health, and delivery lag. Asserted on the ARM JSON the Bicep CLI compiled
 * (`npm run infra:check`, into .local/infra-json/), built here first when missing or older than the
 * Bicep and the .NET SDK is here, as test/unit/infra-compiled.test.ts does; without .NET each test
 * asserts that the build said why it was skipped.
 */

interface ArmResource {
  type: string;
  apiVersion: string;
  name: string;
  kind?: string;
  location?: string;
  tags?: string;
  copy?: { name: string; count: string };
  properties: Record<string, unknown>;
}
interface ArmTemplate {
  parameters: Record<string, { type: string; defaultValue?: unknown }>;
  variables: Record<string, unknown>;
  resources: ArmResource[];
}

describe("infra: alerts on 5xx, /health and delivery lag (compiled)", () => {
  const state =
    ROOT === REPO
      ? compiledInfra()
      : { skipped: "INFRA_TEST_ROOT: compiled JSON is of this repository only" };
  const withAlerts = (check: (alerts: ArmTemplate, main: { resources: ArmResource[] }) => void) => () => {
    if ("skipped" in state) {
      expect(state.skipped).toMatch(/infra check skipped|INFRA_TEST_ROOT/);
      return;
    }
    const main = state.main as unknown as { resources: ArmResource[] };
    const deployment = main.resources.find(
      (r) => r.type === "Microsoft.Resources/deployments" && r.name === "alerts",
    );
    const template = (deployment?.properties as { template?: ArmTemplate } | undefined)?.template;
    if (!template) throw new Error("main.json has no alerts deployment with an inline template");
    check(template, main);
  };
  const actionGroups = "[variables('actionGroupIds')]";
  const criterion = (rule: ArmResource) =>
    (rule.properties.criteria as { allOf: Record<string, unknown>[] }).allOf[0] ?? {};
  /** The measure rules of the copy loop over variables('measureRules'), by name. */
  const measureRule = (alerts: ArmTemplate, name: string) => {
    const rules = alerts.variables.measureRules as Record<string, unknown>[];
    const rule = rules.find((r) => r.name === name);
    if (!rule) throw new Error(`measureRules has no ${name}`);
    return rule;
  };
  const measureLoop = (alerts: ArmTemplate) => {
    const loop = alerts.resources.find((r) => r.copy?.name === "measureAlerts");
    if (!loop) throw new Error("alerts.json has no measureAlerts loop");
    return loop;
  };

  it(
    "deploys a log alert loop for the measured rules, a standard web test and its metric alert",
    withAlerts((alerts) => {
      expect(
        alerts.resources.map((r) => `${r.type}@${r.apiVersion}${r.copy ? ` [${r.copy.name}]` : ""}`),
      ).toEqual([
        "Microsoft.Insights/actionGroups@2023-01-01",
        "Microsoft.Insights/scheduledQueryRules@2023-12-01 [alerts]",
        "Microsoft.Insights/scheduledQueryRules@2023-12-01 [measureAlerts]",
        "Microsoft.Insights/webtests@2022-06-15",
        "Microsoft.Insights/metricAlerts@2018-03-01",
      ]);
      expect((alerts.variables.measureRules as { name: string }[]).map((r) => r.name)).toEqual([
        "http-5xx",
        "delivery-lag",
      ]);
    }),
  );

  it(
    "measures each rule on Application Insights over 15 minutes and notifies the existing action group",
    withAlerts((alerts) => {
      const loop = measureLoop(alerts);
      expect(loop.kind).toBe("LogAlert");
      expect(loop.properties).toMatchObject({
        scopes: ["[resourceId('Microsoft.Insights/components', parameters('applicationInsightsName'))]"],
        evaluationFrequency: "PT5M",
        windowSize: "PT15M",
        autoMitigate: true,
        actions: { actionGroups },
      });
      expect(criterion(loop)).toMatchObject({
        query: "[variables('measureRules')[copyIndex()].query]",
        metricMeasureColumn: "[variables('measureRules')[copyIndex()].measure]",
        threshold: "[variables('measureRules')[copyIndex()].threshold]",
        timeAggregation: "Maximum",
        operator: "GreaterThan",
      });
      // The poisoned and dead-lettered loop notifies the same group.
      const poison = alerts.resources.find((r) => r.copy?.name === "alerts");
      expect(poison?.properties.actions).toEqual({ actionGroups });
      expect(alerts.variables.actionGroupIds).toBe(
        "[if(empty(parameters('alertEmailAddress')), createArray(), createArray(resourceId('Microsoft.Insights/actionGroups', format('ag-{0}', parameters('namePrefix')))))]",
      );
    }),
  );

  it(
    "alerts on the share of HTTP requests that answered 5xx, over 5% of at least 20",
    withAlerts((alerts) => {
      const rule = measureRule(alerts, "http-5xx");
      expect(rule.measure).toBe("failedPercent");
      expect(rule.threshold).toBe("[parameters('serverErrorPercentThreshold')]");
      expect(rule.severity).toBe(1);
      expect(alerts.parameters.serverErrorPercentThreshold?.defaultValue).toBe(5);
      expect(alerts.parameters.serverErrorMinRequests?.defaultValue).toBe(20);
      const query = String(alerts.variables.serverErrorRateQuery);
      expect(query).toContain("'requests'");
      expect(query).toContain("'| where isnotempty(url)'");
      // Sampled rows count for itemCount requests each.
      expect(query).toContain("sum(itemCount)");
      expect(query).toContain("sumif(itemCount, toint(resultCode) >= 500)");
      expect(query).toContain("'| where total >= {0}'");
      expect(query).toContain("parameters('serverErrorMinRequests')");
      expect(query).toContain("failedPercent = round(100.0 * failed / total, 1)");
    }),
  );

  it(
    "alerts on delivery lag: the fastest delivery of the window, from the app's latency histogram",
    withAlerts((alerts) => {
      const rule = measureRule(alerts, "delivery-lag");
      expect(rule.measure).toBe("lagMinutes");
      expect(rule.threshold).toBe("[parameters('deliveryLagThresholdMinutes')]");
      expect(rule.severity).toBe(2);
      expect(alerts.parameters.deliveryLagThresholdMinutes?.defaultValue).toBe(5);
      const query = String(alerts.variables.deliveryLagQuery);
      expect(query).toBe(
        "[join(createArray('customMetrics', '| where name == \"twin_events.delivery_latency\"', '| summarize fastestMs = min(valueMin)', '| extend lagMinutes = round(fastestMs / 60000.0, 1)'), '\n')]",
      );
      // The histogram the query names is the one src/ records.
      const metrics = readFileSync(path.join(REPO, "src", "delivery", "delivery-metrics.ts"), "utf8");
      expect(metrics).toMatch(/createHistogram\("twin_events\.delivery_latency",[\s\S]*?unit: "ms"/);
    }),
  );

  it(
    "tests GET https://<default host name>/health from five locations with a standard web test",
    withAlerts((alerts, main) => {
      const test = alerts.resources.find((r) => r.type === "Microsoft.Insights/webtests");
      expect(test?.kind).toBe("standard");
      expect(test?.tags).toContain("hidden-link:{0}");
      expect(test?.properties).toMatchObject({
        Kind: "standard",
        Enabled: true,
        Frequency: 300,
        RetryEnabled: true,
        Request: { RequestUrl: "[parameters('healthUrl')]", HttpVerb: "GET" },
        ValidationRules: { ExpectedHttpStatusCode: 200, IgnoreHttpStatusCode: false, SSLCheck: true },
      });
      expect(alerts.parameters.availabilityLocations?.defaultValue).toEqual([
        "us-va-ash-azr",
        "us-ca-sjc-azr",
        "emea-nl-ams-azr",
        "emea-gb-db3-azr",
        "apac-sg-sin-azr",
      ]);
      const deployment = main.resources.find((r) => r.name === "alerts");
      const params = deployment?.properties.parameters as Record<string, { value: string }>;
      expect(params.healthUrl?.value).toMatch(
        /^\[format\('https:\/\/\{0\}\/health', reference\(.*'Microsoft\.Resources\/deployments', 'api'\).*\.outputs\.defaultHostName\.value\)\]$/,
      );
      // /health answers without a credential, as the test sends none.
      expect(readFileSync(path.join(REPO, "docs", "api.md"), "utf8")).toContain(
        "`GET /health` (no key) answers 200",
      );
    }),
  );

  it(
    "alerts when 3 of the 5 locations fail, on the same action group",
    withAlerts((alerts) => {
      const alert = alerts.resources.find((r) => r.type === "Microsoft.Insights/metricAlerts");
      const webtest =
        "[resourceId('Microsoft.Insights/webtests', format('webtest-{0}-health', parameters('namePrefix')))]";
      const component =
        "[resourceId('Microsoft.Insights/components', parameters('applicationInsightsName'))]";
      expect(alert?.location).toBe("global");
      expect(alert?.properties).toMatchObject({
        severity: 0,
        enabled: true,
        scopes: [webtest, component],
        evaluationFrequency: "PT1M",
        windowSize: "PT5M",
        autoMitigate: true,
        criteria: {
          "odata.type": "Microsoft.Azure.Monitor.WebtestLocationAvailabilityCriteria",
          webTestId: webtest,
          componentId: component,
          failedLocationCount: "[sub(length(parameters('availabilityLocations')), 2)]",
        },
      });
      const copy = (alert?.properties.copy as { name: string; count: string; input: unknown }[])?.[0];
      expect(copy).toEqual({
        name: "actions",
        count: "[length(variables('actionGroupIds'))]",
        input: { actionGroupId: "[variables('actionGroupIds')[copyIndex('actions')]]" },
      });
    }),
  );

  it("has a runbook line for each alert in docs/operations.md", () => {
    const operations = readFileSync(path.join(REPO, "docs", "operations.md"), "utf8");
    const section = /^## Alerts: what each means and what to do$([\s\S]*?)^## /m.exec(operations)?.[1] ?? "";
    for (const name of ["poisoned", "dead-lettered", "http-5xx", "health", "delivery-lag"]) {
      expect({ name, found: section.includes(`\`alert-<token>-${name}\``) }).toEqual({ name, found: true });
    }
  });
});
