import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { configSchema, HOST_STORAGE_SETTINGS, LOCAL_ONLY_SETTINGS } from "../../src/config";
import {
  compiledInfra,
  deployment,
  type Json,
  type Resource,
  type Template,
  withCompiled,
} from "../support/compiled-infra";

/**
 * infra/ as Azure receives it: the ARM JSON the real Bicep CLI compiled (`npm run infra:check`, which
 * .ci/run runs before the tests: infra/scripts/bicep-cli.js, into .local/infra-json/). When that JSON
 * is missing or older than the Bicep and the .NET SDK is here, this file compiles it first. Without
 * the .NET SDK (a user's laptop) there is nothing to compile with: each test then asserts exactly
 * that, and says once that the infra check runs in CI. The other infra-*.test.ts files read the Bicep
 * as text (what a compile cannot see: comments, README cross-references, src/ log lines).
 */
const ROOT = path.join(__dirname, "..", "..");
const INFRA = path.join(ROOT, "infra");
const OUT = path.join(ROOT, ".local", "infra-json");
const state = compiledInfra();
if ("skipped" in state) process.stderr.write(`\n${state.skipped}\n`);
const withTemplate = (check: (main: Template, manifest: Json) => void) => withCompiled(state, check);

function nested(main: Template, name: string): Template {
  const template = deployment(main, name).properties.template;
  if (!template) throw new Error(`deployment ${name} has no inline template`);
  return template;
}

/** `type@apiVersion` of every resource, nested deployments' resources under their deployment. */
function inventory(template: Template, prefix = ""): string[] {
  return template.resources.flatMap((r) => {
    const line = `${prefix}${r.type}@${r.apiVersion}`;
    const inner = r.properties?.template;
    return inner ? [`${line} ${r.name}`, ...inventory(inner, `${r.name}/`)] : [line];
  });
}

// A minimal reader of ARM template expressions: enough to take apart createObject/union calls.
type Expr = { fn: string; args: Expr[]; rest: string } | { str: string } | { raw: string };

function parseExpression(text: string): Expr {
  let i = 0;
  const parse = (): Expr => {
    if (text[i] === "'") {
      let value = "";
      for (i++; i < text.length; i++) {
        if (text[i] === "'" && text[i + 1] === "'") {
          value += "'";
          i++;
        } else if (text[i] === "'") {
          i++;
          return { str: value };
        } else value += text[i];
      }
      throw new Error("unterminated string");
    }
    const start = i;
    while (i < text.length && /[\w.]/.test(text[i] as string)) i++;
    const name = text.slice(start, i);
    if (text[i] !== "(") return { raw: name };
    i++;
    const args: Expr[] = [];
    while (text[i] !== ")") {
      args.push(parse());
      while (text[i] === " ") i++;
      if (text[i] === ",") i++;
      while (text[i] === " ") i++;
    }
    i++;
    // Property access and indexing after a call (.outputs.x.value, [0]) are kept as text.
    const restStart = i;
    let depth = 0;
    while (i < text.length && (depth > 0 || /[.\w[]/.test(text[i] as string))) {
      if (text[i] === "[") depth++;
      if (text[i] === "]") depth--;
      i++;
    }
    return { fn: name, args, rest: text.slice(restStart, i) };
  };
  const expr = parse();
  if (i !== text.length) throw new Error(`unparsed after ${i}: ${text.slice(i, i + 40)}`);
  return expr;
}

/** The app settings main.json passes to the api module, as name -> expression (or literal). */
function appSettings(main: Template): Map<string, Expr> {
  const value = deployment(main, "api").properties.parameters?.appSettings?.value;
  if (typeof value !== "string" || !value.startsWith("["))
    throw new Error("appSettings is not an expression");
  const expr = parseExpression(value.slice(1, -1));
  if (!("fn" in expr) || expr.fn !== "union") throw new Error("appSettings is not union(...)");
  const settings = new Map<string, Expr>();
  for (const part of expr.args) {
    if (!("fn" in part) || part.fn !== "createObject") throw new Error("union of something but createObject");
    for (let k = 0; k < part.args.length; k += 2) {
      const key = part.args[k];
      const setting = part.args[k + 1];
      if (!key || !("str" in key) || !setting) throw new Error("createObject key is not a literal");
      if (settings.has(key.str)) throw new Error(`${key.str} is set twice`);
      settings.set(key.str, setting);
    }
  }
  return settings;
}

describe("infra/ compiled by the Bicep CLI (.local/infra-json)", () => {
  it(
    "compiles every .bicep file but the Microsoft Graph ones, with Bicep 0.49.2",
    withTemplate((_main, manifest) => {
      expect(manifest.bicepVersion).toBe("0.49.2");
      expect(manifest.notCompiled).toEqual([
        "core/security/app-registration.bicep",
        "core/security/app-registration-api.bicep",
      ]);
      expect(manifest.compiled).toEqual([
        "app/access.bicep",
        "app/api.bicep",
        "core/database/cosmos-sql-serverless.bicep",
        "core/monitor/alerts.bicep",
        "core/monitor/monitoring.bicep",
        "core/network/private-endpoint.bicep",
        "core/network/vnet.bicep",
        "core/security/key-vault.bicep",
        "core/security/user-assigned-identity.bicep",
        "core/storage/storage-account.bicep",
        "main.bicep",
      ]);
      for (const file of manifest.compiled as string[]) {
        expect(existsSync(path.join(OUT, file.replace(/\.bicep$/, ".json")))).toBe(true);
      }
    }),
  );

  it(
    "deploys exactly these resources, at these API versions",
    withTemplate((main) => {
      expect(inventory(main)).toEqual([
        "Microsoft.Resources/resourceGroups@2022-09-01",
        "Microsoft.Resources/deployments@2025-04-01 identity",
        "identity/Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31",
        "Microsoft.Resources/deployments@2025-04-01 monitoring",
        "monitoring/Microsoft.OperationalInsights/workspaces@2023-09-01",
        "monitoring/Microsoft.Insights/components@2020-02-02",
        "Microsoft.Resources/deployments@2025-04-01 storage",
        "storage/Microsoft.Storage/storageAccounts@2024-01-01",
        "storage/Microsoft.Storage/storageAccounts/blobServices@2024-01-01",
        "storage/Microsoft.Storage/storageAccounts/blobServices/containers@2024-01-01",
        "storage/Microsoft.Storage/storageAccounts/queueServices@2024-01-01",
        "storage/Microsoft.Storage/storageAccounts/queueServices/queues@2024-01-01",
        "Microsoft.Resources/deployments@2025-04-01 cosmos",
        "cosmos/Microsoft.DocumentDB/databaseAccounts@2024-11-15",
        "cosmos/Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15",
        "cosmos/Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15",
        "Microsoft.Resources/deployments@2025-04-01 keyVault",
        "keyVault/Microsoft.KeyVault/vaults@2023-07-01",
        "keyVault/Microsoft.KeyVault/vaults/secrets@2023-07-01",
        // privateNetworking only (condition; test/unit/infra-private-networking.test.ts).
        "Microsoft.Resources/deployments@2025-04-01 network",
        "network/Microsoft.Network/virtualNetworks@2024-05-01",
        ...["Blob", "Queue", "Table", "Cosmos", "KeyVault"].flatMap((target) => [
          `Microsoft.Resources/deployments@2025-04-01 privateEndpoint${target}`,
          `privateEndpoint${target}/Microsoft.Network/privateDnsZones@2024-06-01`,
          `privateEndpoint${target}/Microsoft.Network/privateDnsZones/virtualNetworkLinks@2024-06-01`,
          `privateEndpoint${target}/Microsoft.Network/privateEndpoints@2024-05-01`,
          `privateEndpoint${target}/Microsoft.Network/privateEndpoints/privateDnsZoneGroups@2024-05-01`,
        ]),
        // The stand-in for core/security/app-registration.bicep (no resources offline).
        "Microsoft.Resources/deployments@2025-04-01 appRegistration",
        "Microsoft.Resources/deployments@2025-04-01 api",
        "api/Microsoft.Web/serverfarms@2024-04-01",
        "api/Microsoft.Web/sites@2024-04-01",
        "api/Microsoft.Web/sites/config@2024-04-01",
        "Microsoft.Resources/deployments@2025-04-01 access",
        ...Array(3).fill("access/Microsoft.Authorization/roleAssignments@2022-04-01"),
        "access/Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15",
        ...Array(2).fill("access/Microsoft.Authorization/roleAssignments@2022-04-01"),
        "access/Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15",
        // The operations team's (operatorPrincipalIds), one copy loop each.
        ...Array(2).fill("access/Microsoft.Authorization/roleAssignments@2022-04-01"),
        "access/Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15",
        "access/Microsoft.Authorization/roleAssignments@2022-04-01",
        "Microsoft.Resources/deployments@2025-04-01 alerts",
        "alerts/Microsoft.Insights/actionGroups@2023-01-01",
        "alerts/Microsoft.Insights/scheduledQueryRules@2023-12-01",
        "alerts/Microsoft.Insights/scheduledQueryRules@2023-12-01",
        "alerts/Microsoft.Insights/webtests@2022-06-15",
        "alerts/Microsoft.Insights/metricAlerts@2018-03-01",
      ]);
      expect(deployment(main, "appRegistration").condition).toBe("[empty(parameters('authClientId'))]");
    }),
  );

  it(
    "turns off key authentication on storage, Cosmos DB and Application Insights",
    withTemplate((main) => {
      const byType = (name: string, type: string) => {
        const found = nested(main, name).resources.find((r) => r.type === type);
        if (!found) throw new Error(`${name} has no ${type}`);
        return found.properties;
      };
      expect(byType("storage", "Microsoft.Storage/storageAccounts")).toMatchObject({
        allowSharedKeyAccess: false,
        allowBlobPublicAccess: false,
        minimumTlsVersion: "TLS1_2",
      });
      expect(byType("cosmos", "Microsoft.DocumentDB/databaseAccounts")).toMatchObject({
        disableLocalAuth: true,
      });
      expect(byType("monitoring", "Microsoft.Insights/components")).toMatchObject({ DisableLocalAuth: true });
      const site = byType("api", "Microsoft.Web/sites");
      expect(site).toMatchObject({ httpsOnly: true, functionAppConfig: { runtime: { name: "node" } } });
    }),
  );

  it(
    "sets exactly the app settings src/config.ts reads in Azure and the allow-listed host ones",
    withTemplate((main) => {
      const settings = appSettings(main);
      const local = new Set<string>(LOCAL_ONLY_SETTINGS);
      const hostStorage = new Set<string>(HOST_STORAGE_SETTINGS);
      const service = Object.keys(configSchema.shape).filter((k) => !local.has(k) && !hostStorage.has(k));
      const platform = [
        "AzureWebJobsStorage__blobServiceUri",
        "AzureWebJobsStorage__queueServiceUri",
        "AzureWebJobsStorage__tableServiceUri",
        "AzureWebJobsStorage__credential",
        "AzureWebJobsStorage__clientId",
        "AZURE_CLIENT_ID",
        "APPLICATIONINSIGHTS_CONNECTION_STRING",
        "APPLICATIONINSIGHTS_AUTHENTICATION_STRING",
      ];
      expect([...settings.keys()].sort()).toEqual([...service, ...platform].sort());
      expect(settings.get("AUTH_MODE")).toEqual({ str: "entra" });
      expect(settings.get("AzureWebJobsStorage__credential")).toEqual({ str: "managedidentity" });
      const key = settings.get("SECRETS_ENCRYPTION_KEY");
      expect(key && "fn" in key && key.fn === "format" && key.args[0]).toEqual({
        str: "@Microsoft.KeyVault(SecretUri={0})",
      });
      // Every default of main.bicep's parameters for these settings is src/config.ts's default.
      const params = main.parameters;
      for (const [name, setting] of settings) {
        const param = "fn" in setting && setting.fn === "parameters" ? setting : undefined;
        const paramOfString =
          "fn" in setting && setting.fn === "string" && setting.args[0] && "fn" in setting.args[0]
            ? setting.args[0]
            : undefined;
        const ref = param ?? (paramOfString?.fn === "parameters" ? paramOfString : undefined);
        const paramName = ref?.args[0] && "str" in ref.args[0] ? ref.args[0].str : undefined;
        if (!paramName) continue;
        const schema = (
          configSchema.shape as Record<
            string,
            { safeParse(v: unknown): { success: boolean; data?: unknown } }
          >
        )[name];
        const codeDefault = schema?.safeParse(undefined);
        const bicepDefault = params[paramName]?.defaultValue;
        if (codeDefault?.success && codeDefault.data !== undefined && bicepDefault !== undefined) {
          expect({ name, value: String(bicepDefault) }).toEqual({ name, value: String(codeDefault.data) });
        }
      }
    }),
  );

  it(
    "assigns the app's identity, the operator and the operations team their roles before the app exists",
    withTemplate((main) => {
      const access = nested(main, "access");
      const roles = access.variables?.roles as Record<string, string>;
      const roleOf = (expr: string): string[] => {
        if (expr.includes("variables('appStorageRoles')")) {
          return ((access.variables?.appStorageRoles ?? []) as string[]).map(
            (v) => /variables\('roles'\)\.(\w+)/.exec(v)?.[1] ?? v,
          );
        }
        const key = /variables\('roles'\)\.(\w+)/.exec(expr)?.[1];
        if (key) return [key];
        if (expr.includes("variables('cosmosDataContributorRoleId')")) return ["cosmosDataContributor"];
        if (expr.includes("variables('cosmosDataReaderRoleId')")) return ["cosmosDataReader"];
        throw new Error(`unknown role in ${expr}`);
      };
      const granted = access.resources.flatMap((r) => {
        const principal = String(r.properties.principalId);
        const who = principal.includes("appPrincipalId")
          ? "app"
          : principal.includes("operatorPrincipalId")
            ? "operator"
            : /variables\('team(PrincipalIds|QueueGrants)'\)/.test(principal)
              ? "team"
              : principal;
        return roleOf(String(r.properties.roleDefinitionId)).map((role) => `${who}: ${role}`);
      });
      expect(granted).toEqual([
        "app: storageBlobDataOwner",
        "app: storageQueueDataContributor",
        "app: storageTableDataContributor",
        "app: keyVaultSecretsUser",
        "app: monitoringMetricsPublisher",
        "app: cosmosDataContributor",
        "operator: keyVaultSecretsOfficer",
        "operator: storageQueueDataContributor",
        "operator: cosmosDataContributor",
        "team: keyVaultSecretsUser",
        "team: storageQueueDataContributor",
        "team: cosmosDataReader",
        "team: monitoringReader",
      ]);
      // Built-in role definition ids, the same in every tenant.
      expect(roles).toEqual({
        storageBlobDataOwner: "b7e6dc6d-f1e8-4753-8033-0f276bb0955b",
        storageQueueDataContributor: "974c5e8b-45b9-4653-ba55-5f855dd0fb88",
        storageTableDataContributor: "0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3",
        keyVaultSecretsUser: "4633458b-17de-408a-b874-0445c86b69e6",
        keyVaultSecretsOfficer: "b86a8fe4-44ce-4948-aee5-eccb2c155cd7",
        monitoringMetricsPublisher: "3913510d-42f4-4e42-8a64-420c390055eb",
        monitoringReader: "43d0d8ad-25c7-4714-9337-8ba259a9fe05",
      });
      // Cosmos DB Built-in Data Contributor and Data Reader.
      expect(access.variables?.cosmosDataContributorRoleId).toBe("00000000-0000-0000-0000-000000000002");
      expect(access.variables?.cosmosDataReaderRoleId).toBe("00000000-0000-0000-0000-000000000001");
      // The operator's roles only when there is an operator; the app's always.
      for (const r of access.resources) {
        const operator = String(r.properties.principalId).includes("operatorPrincipalId");
        expect(r.condition).toBe(operator ? "[not(empty(parameters('operatorPrincipalId')))]" : undefined);
      }
      expect(
        deployment(main, "api").dependsOn?.some((d) =>
          d.endsWith("'Microsoft.Resources/deployments', 'access')]"),
        ),
      ).toBe(true);
    }),
  );

  it(
    "outputs what azd and infra/README.md use, and main.parameters.json names only real parameters",
    withTemplate((main) => {
      expect(Object.keys(main.outputs)).toEqual([
        "AZURE_LOCATION",
        "AZURE_TENANT_ID",
        "AZURE_RESOURCE_GROUP",
        "AZURE_FUNCTION_APP_NAME",
        "AZURE_FUNCTION_APP_IDENTITY_NAME",
        "SERVICE_API_NAME",
        "SERVICE_API_URI",
        "AZURE_STORAGE_ACCOUNT_NAME",
        "AZURE_KEY_VAULT_NAME",
        "AZURE_COSMOS_ACCOUNT_NAME",
        "AZURE_COSMOS_ENDPOINT",
        "APPLICATIONINSIGHTS_NAME",
        "TWIN_EVENTS_QUEUE",
        "SERVICE_API_CLIENT_ID",
        "SERVICE_API_AUTHORITY",
        "ENDPOINT_SYSTEM_IDENTITY_PRINCIPAL_ID",
        "ENDPOINT_USER_ASSIGNED_IDENTITIES",
        "AZURE_PRIVATE_ENDPOINT_SUBNET_ID",
        "AZURE_VIRTUAL_NETWORK_ID",
      ]);
      expect(main.outputs.ENDPOINT_SYSTEM_IDENTITY_PRINCIPAL_ID?.value).toMatch(
        /'Microsoft\.Resources\/deployments', 'api'\), '[\d-]+'\)\.outputs\.systemIdentityPrincipalId\.value\]$/,
      );
      expect(nested(main, "api").outputs.systemIdentityPrincipalId?.value).toBe(
        "[reference(resourceId('Microsoft.Web/sites', parameters('name')), '2024-04-01', 'full').identity.principalId]",
      );
      // Not AUTH_CLIENT_ID: azd would feed it back as the authClientId parameter.
      expect(main.outputs).not.toHaveProperty("AUTH_CLIENT_ID");
      const mapped = JSON.parse(readFileSync(path.join(INFRA, "main.parameters.json"), "utf8")).parameters;
      expect(Object.keys(mapped).filter((name) => !(name in main.parameters))).toEqual([]);
      expect(main.parameters.secretsEncryptionKey?.type).toBe("securestring");
      expect(mapped.endpointIdentityIds).toEqual({ value: "$" + "{ENDPOINT_IDENTITY_IDS}" });
      expect(main.parameters.endpointIdentityIds).toMatchObject({ type: "string", defaultValue: "" });
    }),
  );

  it(
    "gives the app a system-assigned identity and the endpoints' user-assigned ones beside its runtime identity",
    withTemplate((main) => {
      const site = nested(main, "api").resources.find((r) => r.type === "Microsoft.Web/sites") as Resource & {
        identity?: { type: string; userAssignedIdentities: string };
      };
      expect(site.identity).toEqual({
        type: "SystemAssigned, UserAssigned",
        userAssignedIdentities:
          "[union(createObject(format('{0}', parameters('identityId')), createObject()), toObject(parameters('endpointIdentityIds'), lambda('id', lambdaVariables('id')), lambda('id', createObject())))]",
      });
      // The runtime identity keeps the Key Vault references and the deployment package.
      expect(site.properties).toMatchObject({
        keyVaultReferenceIdentity: "[parameters('identityId')]",
        functionAppConfig: {
          deployment: {
            storage: {
              authentication: {
                type: "UserAssignedIdentity",
                userAssignedIdentityResourceId: "[parameters('identityId')]",
              },
            },
          },
        },
      });
      const api = deployment(main, "api").properties.parameters ?? {};
      expect(api.identityId?.value).toMatch(
        /'Microsoft\.Resources\/deployments', 'identity'\), '[\d-]+'\)\.outputs\.id\.value\]$/,
      );
      // The endpoints' list, checked: fail() when it is not all user-assigned identities, or names the
      // runtime identity (the identity module's id, compared ignoring case).
      // A parameter ARM computes whole: the expression stands for the {value} object itself.
      const list = String(api.endpointIdentityIds as unknown);
      expect(list).toMatch(
        /^\[if\(not\(empty\(variables\('endpointIdentityIdsNotUserAssigned'\)\)\), createObject\('value', fail\(/,
      );
      expect(list).toContain(
        "if(contains(map(variables('endpointIdentityIdCandidates'), lambda('id', toLower(lambdaVariables('id')))), toLower(reference(",
      );
      expect(list).toMatch(
        /'identity'\), '[\d-]+'\)\.outputs\.id\.value\)\), createObject\('value', fail\(format\('(?:[^']|'')*runtime identity/,
      );
      expect(list).toMatch(/createObject\('value', variables\('endpointIdentityIdCandidates'\)\)\)\)\]$/);
      expect(main.variables?.endpointIdentityIdCandidates).toBe(
        "[union(filter(map(split(parameters('endpointIdentityIds'), ','), lambda('id', trim(lambdaVariables('id')))), lambda('id', not(empty(lambdaVariables('id'))))), createArray())]",
      );
    }),
  );

  it(
    "grants the system-assigned identity and the endpoints' identities no role: every assignment is made before the app",
    withTemplate((main) => {
      const access = nested(main, "access");
      const principals = new Set(access.resources.map((r) => String(r.properties.principalId)));
      for (const principal of principals) {
        expect(principal).not.toMatch(/systemIdentity|identity\.principalId|endpointIdentity/);
      }
      const accessParams = JSON.stringify(deployment(main, "access").properties.parameters);
      expect(accessParams).not.toContain("'api')");
      expect(accessParams).not.toContain("endpointIdentity");
      // No other module assigns roles.
      const assigning = inventory(main).filter((line) => /roleAssignments|sqlRoleAssignments/.test(line));
      expect(assigning.every((line) => line.startsWith("access/"))).toBe(true);
    }),
  );
});

/** A parameter as main.json declares it, its decorators included. */
type Parameter = {
  type: string;
  defaultValue?: unknown;
  minValue?: number;
  maxValue?: number;
  allowedValues?: unknown[];
  metadata?: { description?: string };
};

function parameter(template: Template, name: string): Parameter {
  const found = template.parameters[name] as Parameter | undefined;
  if (!found) throw new Error(`no parameter ${name}`);
  return found;
}

function resourceOf(template: Template, type: string): Resource {
  const found = template.resources.find((r) => r.type === type);
  if (!found) throw new Error(`no ${type}`);
  return found;
}

/** What main.parameters.json maps a parameter to, and the workflow's env. */
const mappedParameters = JSON.parse(readFileSync(path.join(INFRA, "main.parameters.json"), "utf8"))
  .parameters as Record<string, { value: unknown }>;
const workflow = readFileSync(path.join(ROOT, ".github", "workflows", "azure-dev.yml"), "utf8");

describe("infra/ compiled: what bounds the bill (issue 39)", () => {
  it(
    "caps the workspace's daily ingestion at logDailyCapGb (LOG_DAILY_CAP_GB), 1 GB by default, -1 for none",
    withTemplate((main) => {
      expect(parameter(main, "logDailyCapGb")).toMatchObject({ type: "int", defaultValue: 1, minValue: -1 });
      expect(parameter(main, "logDailyCapGb").maxValue).toBeUndefined();
      expect(parameter(main, "logDailyCapGb").metadata?.description).toMatch(/-1: no cap/);
      expect(deployment(main, "monitoring").properties.parameters?.dailyCapGb).toEqual({
        value: "[parameters('logDailyCapGb')]",
      });
      const monitoring = nested(main, "monitoring");
      // No default in the module: main.bicep's is the only one.
      expect(parameter(monitoring, "dailyCapGb")).toMatchObject({ type: "int", minValue: -1 });
      expect(parameter(monitoring, "dailyCapGb")).not.toHaveProperty("defaultValue");
      expect(
        resourceOf(monitoring, "Microsoft.OperationalInsights/workspaces").properties.workspaceCapping,
      ).toEqual({ dailyQuotaGb: "[parameters('dailyCapGb')]" });
      // azd's mapping falls back to the same default when the variable is unset or empty (as the
      // workflow passes an unset repository variable).
      const mapped = String(mappedParameters.logDailyCapGb?.value);
      expect(mapped).toMatch(/^\$\{LOG_DAILY_CAP_GB=(-?\d+)\}$/);
      expect(/=(-?\d+)\}$/.exec(mapped)?.[1]).toBe(String(parameter(main, "logDailyCapGb").defaultValue));
      expect(workflow).toMatch(/^ {6}LOG_DAILY_CAP_GB: \$\{\{ vars\.LOG_DAILY_CAP_GB \}\}$/m);
    }),
  );

  it(
    "keeps Application Insights workspace-based, so that the workspace's cap bounds its telemetry",
    withTemplate((main) => {
      const component = resourceOf(nested(main, "monitoring"), "Microsoft.Insights/components").properties;
      expect(component.WorkspaceResourceId).toBe(
        "[resourceId('Microsoft.OperationalInsights/workspaces', parameters('logAnalyticsName'))]",
      );
      // Classic ingestion (IngestionMode ApplicationInsights) would bypass the workspace and its cap.
      expect(component.IngestionMode ?? "LogAnalytics").toBe("LogAnalytics");
    }),
  );

  it(
    "sizes instances at 512 MB by default, and only at Flex Consumption's sizes, in main.bicep and app/api.bicep",
    withTemplate((main) => {
      const api = nested(main, "api");
      for (const template of [main, api]) {
        expect(parameter(template, "instanceMemoryMB")).toMatchObject({
          type: "int",
          defaultValue: 512,
          allowedValues: [512, 2048, 4096],
        });
      }
      expect(deployment(main, "api").properties.parameters?.instanceMemoryMB).toEqual({
        value: "[parameters('instanceMemoryMB')]",
      });
      expect(resourceOf(api, "Microsoft.Web/sites").properties).toMatchObject({
        functionAppConfig: { scaleAndConcurrency: { instanceMemoryMB: "[parameters('instanceMemoryMB')]" } },
      });
    }),
  );

  it(
    "takes 16 concurrent HTTP requests per instance by default (1 to 1000), set on the site",
    withTemplate((main) => {
      const api = nested(main, "api");
      for (const template of [main, api]) {
        expect(parameter(template, "httpPerInstanceConcurrency")).toMatchObject({
          type: "int",
          defaultValue: 16,
          minValue: 1,
          maxValue: 1000,
        });
      }
      expect(parameter(main, "httpPerInstanceConcurrency").metadata?.description).toMatch(/0\.25 cores/);
      expect(deployment(main, "api").properties.parameters?.httpPerInstanceConcurrency).toEqual({
        value: "[parameters('httpPerInstanceConcurrency')]",
      });
      // functionAppConfig.scaleAndConcurrency.triggers.http.perInstanceConcurrency of Microsoft.Web/sites
      // (azure-docs, articles/azure-functions/functions-infrastructure-as-code.md).
      const scale = (
        resourceOf(api, "Microsoft.Web/sites").properties.functionAppConfig as {
          scaleAndConcurrency: Json;
        }
      ).scaleAndConcurrency;
      expect(scale).toEqual({
        instanceMemoryMB: "[parameters('instanceMemoryMB')]",
        maximumInstanceCount: "[parameters('maximumInstanceCount')]",
        triggers: { http: { perInstanceConcurrency: "[parameters('httpPerInstanceConcurrency')]" } },
      });
    }),
  );
});

describe("infra/ compiled: what Flex Consumption accepts, and data that survives a mistake (issue 42)", () => {
  it(
    "sets no siteConfig property Flex Consumption rejects or Microsoft's Flex templates leave out (ftpsState, http20Enabled)",
    withTemplate((main) => {
      const site = resourceOf(nested(main, "api"), "Microsoft.Web/sites").properties;
      const siteConfig = site.siteConfig as Json;
      expect(siteConfig).not.toHaveProperty("ftpsState");
      expect(siteConfig).not.toHaveProperty("http20Enabled");
      // Nor anywhere else on the site (a stray copy outside siteConfig would be sent too).
      expect(JSON.stringify(site)).not.toMatch(/ftpsState|http20Enabled/i);
      // appSettings compiles to a copy loop.
      expect(Object.keys(siteConfig).sort()).toEqual(["copy", "minTlsVersion", "scmMinTlsVersion"]);
    }),
  );

  it(
    "bounds maximumInstanceCount at Flex Consumption's 1 to 1000, in main.json and the api module, citing where",
    withTemplate((main) => {
      const api = nested(main, "api");
      for (const template of [main, api]) {
        const param = parameter(template, "maximumInstanceCount");
        expect(param).toMatchObject({ type: "int", defaultValue: 100, minValue: 1, maxValue: 1000 });
        expect(param.metadata?.description).toContain(
          "https://learn.microsoft.com/azure/azure-functions/event-driven-scaling#limit-scale-out",
        );
        expect(param.metadata?.description).toMatch(/From 1 to 1000/);
      }
      expect(deployment(main, "api").properties.parameters?.maximumInstanceCount).toEqual({
        value: "[parameters('maximumInstanceCount')]",
      });
    }),
  );

  it(
    "keeps Cosmos DB on continuous backup, the free 7-day tier, still serverless",
    withTemplate((main) => {
      const account = resourceOf(nested(main, "cosmos"), "Microsoft.DocumentDB/databaseAccounts").properties;
      expect(account.backupPolicy).toEqual({
        type: "Continuous",
        continuousModeProperties: { tier: "Continuous7Days" },
      });
      expect(account.capabilities).toEqual([{ name: "EnableServerless" }]);
      // A new account, never a restore: the restore procedure (docs/operations.md) makes its own.
      expect(account).not.toHaveProperty("createMode");
      expect(account).not.toHaveProperty("restoreParameters");
    }),
  );

  it(
    "names the Cosmos DB account cosmos-<token> unless cosmosAccountName (COSMOS_ACCOUNT_NAME) names a restored one",
    withTemplate((main) => {
      expect(parameter(main, "cosmosAccountName")).toMatchObject({ type: "string", defaultValue: "" });
      // A parameter ARM computes whole: the expression stands for the {value} object itself.
      expect(String(deployment(main, "cosmos").properties.parameters?.name as unknown)).toBe(
        "[if(not(empty(parameters('cosmosAccountName'))), createObject('value', parameters('cosmosAccountName')), createObject('value', format('cosmos-{0}', variables('resourceToken'))))]",
      );
      expect(mappedParameters.cosmosAccountName).toEqual({ value: "$" + "{COSMOS_ACCOUNT_NAME}" });
      // The app's data-plane role follows the account (a restore does not bring role assignments).
      expect(String(deployment(main, "access").properties.parameters?.cosmosAccountName?.value)).toMatch(
        /'Microsoft\.Resources\/deployments', 'cosmos'\), '[\d-]+'\)\.outputs\.name\.value\]$/,
      );
    }),
  );

  it(
    "keeps the encryption key's vault recoverable: soft delete, 90 days by default (7 to 90), purge protection on",
    withTemplate((main) => {
      const keyVault = nested(main, "keyVault");
      expect(parameter(keyVault, "softDeleteRetentionInDays")).toMatchObject({
        type: "int",
        defaultValue: 90,
        minValue: 7,
        maxValue: 90,
      });
      expect(resourceOf(keyVault, "Microsoft.KeyVault/vaults").properties).toMatchObject({
        enableSoftDelete: true,
        softDeleteRetentionInDays: "[parameters('softDeleteRetentionInDays')]",
        enablePurgeProtection: true,
        enableRbacAuthorization: true,
      });
    }),
  );
});
