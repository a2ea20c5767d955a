import { readFileSync } from "node:fs";
import * as path from "node:path";
import { block, code } from "../support/bicep-text";

/**
 * The app's identity and its roles, read from the Bicep as text. What this guards: every role a
 * setting needs exists before the site that reads the setting (a site created first would start
 * with its Key Vault reference unresolved and fail configuration validation); the site runs as one
 * user-assigned identity, named wherever a credential is chosen, while the system-assigned and extra
 * user-assigned identities it carries for identity-based endpoints get no role and can never be the
 * runtime identity; and Application Insights takes
 * Entra ID ingestion only, which the app is allowed.
 */
// INFRA_TEST_ROOT: check another copy of the repository's infra/ (e.g. an older one) instead.
const ROOT = process.env.INFRA_TEST_ROOT ?? path.join(__dirname, "..", "..");
const read = (file: string) => readFileSync(path.join(ROOT, "infra", file), "utf8");
const mainBicep = read("main.bicep");
const apiBicep = read("app/api.bicep");
const accessBicep = read("app/access.bicep");
const monitoringBicep = read("core/monitor/monitoring.bicep");

/** Built-in role definition ids (the same in every tenant), by the key access.bicep uses for them. */
const BUILT_IN_ROLES: Record<string, string> = {
  storageBlobDataOwner: "b7e6dc6d-f1e8-4753-8033-0f276bb0955b",
  storageQueueDataContributor: "974c5e8b-45b9-4653-ba55-5f855dd0fb88",
  storageTableDataContributor: "0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3",
  keyVaultSecretsUser: "4633458b-17de-408a-b874-0445c86b69e6",
  monitoringMetricsPublisher: "3913510d-42f4-4e42-8a64-420c390055eb",
};
const COSMOS_DATA_CONTRIBUTOR = "00000000-0000-0000-0000-000000000002";

/** `NAME: value` of main.bicep's `var <name> = { ... }`. */
function settings(variable: string): Map<string, string> {
  const body = code(block(mainBicep, `var ${variable} = {`));
  return new Map(
    [...body.matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*): (.+)$/gm)].map((m) => [m[1] ?? "", (m[2] ?? "").trim()]),
  );
}

/** The role keys (access.bicep `roles.<key>`, or the Cosmos DB role) granted to the app's principal. */
function rolesGrantedToApp(): Set<string> {
  const granted = new Set<string>();
  const storageRoles = [...code(block(accessBicep, "var appStorageRoles = [")).matchAll(/roles\.(\w+)/g)].map(
    (m) => m[1] ?? "",
  );
  for (const header of accessBicep.matchAll(/^resource \w+ '[^']+' = /gm)) {
    const resource = code(block(accessBicep, header[0]));
    if (!/principalId: appPrincipalId\b/.test(resource)) continue;
    if (/for \w+ in appStorageRoles/.test(resource)) for (const role of storageRoles) granted.add(role);
    for (const m of resource.matchAll(/roleDefinitions', roles\.(\w+)\)/g)) granted.add(m[1] ?? "");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep (or azd) interpolation, matched as text
    if (resource.includes("sqlRoleDefinitions/${cosmosDataContributorRoleId}")) granted.add("cosmosData");
  }
  return granted;
}

/** Where each role is scoped: `scope: <resource symbol>` of the assignment. */
function scopeOfAppRole(role: string): string | undefined {
  for (const header of accessBicep.matchAll(/^resource \w+ '[^']+' = /gm)) {
    const resource = code(block(accessBicep, header[0]));
    if (resource.includes(`roles.${role})`) && /principalId: appPrincipalId\b/.test(resource)) {
      return /\bscope: (\w+)/.exec(resource)?.[1];
    }
  }
  return undefined;
}

const platformSettings = settings("platformSettings");
const serviceSettings = settings("serviceSettings");

describe("infra: the roles the app's settings need exist before the app", () => {
  /** Each setting the site reads at start with its identity, and the roles that reading needs. */
  const NEEDS: [setting: string, roles: string[]][] = [
    ["SECRETS_ENCRYPTION_KEY", ["keyVaultSecretsUser"]],
    ["APPLICATIONINSIGHTS_AUTHENTICATION_STRING", ["monitoringMetricsPublisher"]],
    ["AzureWebJobsStorage__blobServiceUri", ["storageBlobDataOwner"]],
    ["AzureWebJobsStorage__queueServiceUri", ["storageQueueDataContributor"]],
    ["AzureWebJobsStorage__tableServiceUri", ["storageTableDataContributor"]],
    ["COSMOS_ENDPOINT", ["cosmosData"]],
  ];

  it("sets each of those settings (the list above is not stale)", () => {
    const all = new Map([...platformSettings, ...serviceSettings]);
    expect(NEEDS.map(([setting]) => setting).filter((setting) => !all.has(setting))).toEqual([]);
    expect(serviceSettings.get("SECRETS_ENCRYPTION_KEY")).toMatch(/^'@Microsoft\.KeyVault\(SecretUri=/);
  });

  it("grants the app's principal every role those settings need, with the right role ids", () => {
    const granted = rolesGrantedToApp();
    const missing = NEEDS.flatMap(([setting, roles]) =>
      roles.filter((role) => !granted.has(role)).map((role) => `${setting}: ${role}`),
    );
    expect(missing).toEqual([]);
    const roleIds = block(accessBicep, "var roles = {");
    for (const [role, id] of Object.entries(BUILT_IN_ROLES)) expect(roleIds).toContain(`${role}: '${id}'`);
    expect(accessBicep).toContain(`var cosmosDataContributorRoleId = '${COSMOS_DATA_CONTRIBUTOR}'`);
  });

  it("grants them to a user-assigned identity made before the app, not to the app's own identity", () => {
    expect(mainBicep).toMatch(/^module identity 'core\/security\/user-assigned-identity\.bicep' = \{/m);
    expect(read("core/security/user-assigned-identity.bicep")).toMatch(
      /^resource \w+ 'Microsoft\.ManagedIdentity\/userAssignedIdentities@[\d-]+' = \{/m,
    );
    const access = code(block(mainBicep, /^module access 'app\/access\.bicep' = /m));
    expect(access).toMatch(/\bappPrincipalId: identity\.outputs\.principalId\b/);
    // An output of the app in the role module would make the roles wait for the app, not precede it.
    expect(access).not.toMatch(/\bapi\.outputs\./);
  });

  it("creates the app only once the roles are assigned (module api depends on module access)", () => {
    const api = code(block(mainBicep, /^module api 'app\/api\.bicep' = /m));
    const dependsOn = /\bdependsOn: \[([^\]]*)\]/.exec(api)?.[1] ?? "";
    expect(dependsOn.split(/\s+/).filter(Boolean)).toContain("access");
    expect(api).toMatch(/\bidentityId: identity\.outputs\.id\b/);
  });
});

describe("infra: the app runs as its user-assigned runtime identity", () => {
  const site = code(block(apiBicep, /^resource site 'Microsoft\.Web\/sites@[\d-]+' = /m));

  it("carries the runtime identity, a system-assigned one and the endpoints' user-assigned ones", () => {
    const identity = block(site, "identity: {");
    expect(identity).toMatch(/type: 'SystemAssigned, UserAssigned'/);
    expect(identity).toMatch(
      /userAssignedIdentities: union\(\s*\{\s*'\$\{identityId\}': \{\}\s*\},\s*toObject\(endpointIdentityIds, id => id, id => \{\}\)\s*\)/,
    );
  });

  it("resolves Key Vault references and reads its deployment package with it, not the system identity", () => {
    expect(site).toMatch(/\bkeyVaultReferenceIdentity: identityId\b/);
    expect(block(site, "authentication: {")).toMatch(
      /type: 'UserAssignedIdentity'\s+userAssignedIdentityResourceId: identityId\b/,
    );
    // Without keyVaultReferenceIdentity the platform would resolve references with the
    // system-assigned identity, which has no role.
    expect(site).not.toMatch(/keyVaultReferenceIdentity: '?SystemAssigned/);
  });

  it("names it wherever a credential is chosen: the host's storage, the code, the telemetry", () => {
    expect(platformSettings.get("AzureWebJobsStorage__credential")).toBe("'managedidentity'");
    expect(platformSettings.get("AzureWebJobsStorage__clientId")).toBe("identity.outputs.clientId");
    expect(platformSettings.get("AZURE_CLIENT_ID")).toBe("identity.outputs.clientId");
  });
});

describe("infra: the identities of identity-based endpoints", () => {
  const api = code(block(mainBicep, /^module api 'app\/api\.bicep' = /m));
  const access = code(block(mainBicep, /^module access 'app\/access\.bicep' = /m));

  it("attaches the user-assigned identities of endpointIdentityIds (ENDPOINT_IDENTITY_IDS), empty by default", () => {
    expect(mainBicep).toMatch(/^param endpointIdentityIds string = ''$/m);
    expect(apiBicep).toMatch(/^param endpointIdentityIds array = \[\]$/m);
    expect(api).toMatch(/\bendpointIdentityIds: endpointIdentityIdList\b/);
    const mapped = JSON.parse(read("main.parameters.json")).parameters;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: azd interpolation, matched as text
    expect(mapped.endpointIdentityIds).toEqual({ value: "${ENDPOINT_IDENTITY_IDS}" });
  });

  it("lists exactly those in ENDPOINT_USER_ASSIGNED_IDENTITIES, comma-separated", () => {
    expect(serviceSettings.get("ENDPOINT_USER_ASSIGNED_IDENTITIES")).toBe(
      "join(endpointIdentityIdList, ',')",
    );
  });

  it("fails the deployment when the list names the runtime identity, or anything but a user-assigned identity", () => {
    const checked = code(mainBicep.slice(mainBicep.indexOf("var endpointIdentityIdList = ")));
    const expression = checked.slice(0, checked.indexOf("\n\n"));
    // Compared ignoring case, as ARM ids are, against the runtime identity's own id.
    expect(expression).toMatch(
      /contains\(map\(endpointIdentityIdCandidates, id => toLower\(id\)\), toLower\(identity\.outputs\.id\)\)\s*\?\s*fail\('.*runtime identity/,
    );
    expect(expression).toMatch(/!empty\(endpointIdentityIdsNotUserAssigned\)\s*\?\s*fail\(/);
    expect(expression).toMatch(/:\s*endpointIdentityIdCandidates\s*$/);
    expect(code(mainBicep)).toMatch(
      /var endpointIdentityIdsNotUserAssigned = filter\(\s*endpointIdentityIdCandidates,\s*id => !contains\(toLower\(id\), '\/providers\/microsoft\.managedidentity\/userassignedidentities\/'\)/,
    );
    // The list reaches the app and the setting only through the checked variable.
    const uses = code(mainBicep)
      .replace(/'(?:[^'\\]|\\.)*'/g, "''")
      .match(/^.*\bendpointIdentityIds\b.*$/gm);
    expect(uses?.map((line) => line.trim())).toEqual([
      "param endpointIdentityIds string = ''",
      "filter(map(split(endpointIdentityIds, ''), id => trim(id)), id => !empty(id)),",
      "endpointIdentityIds: endpointIdentityIdList",
    ]);
  });

  it("grants the system-assigned identity and the endpoints' identities no role of this deployment", () => {
    // Roles are granted by app/access.bicep alone, to the runtime identity, the operator and the team:
    // nothing of the app (its system identity only exists with it) reaches that module.
    expect(access).not.toMatch(/\bapi\.outputs\./);
    expect(access).not.toMatch(/endpointIdentity/);
    expect(code(accessBicep)).not.toMatch(/systemIdentity|endpointIdentity|identity\.principalId/);
    expect(code(apiBicep)).not.toMatch(/Microsoft\.Authorization\/roleAssignments/);
    for (const file of [
      "core/storage/storage-account.bicep",
      "core/security/key-vault.bicep",
      "core/database/cosmos-sql-serverless.bicep",
      "core/monitor/monitoring.bicep",
    ])
      expect(code(read(file))).not.toMatch(/roleAssignments/);
  });

  it("outputs the system-assigned identity's principal id, for endpoint owners' role assignments", () => {
    expect(apiBicep).toMatch(/^output systemIdentityPrincipalId string = site\.identity\.principalId$/m);
    expect(mainBicep).toMatch(
      /^output ENDPOINT_SYSTEM_IDENTITY_PRINCIPAL_ID string = api\.outputs\.systemIdentityPrincipalId$/m,
    );
  });
});

describe("infra: Application Insights ingestion", () => {
  it("takes Entra ID-authenticated telemetry only (local auth off)", () => {
    const component = code(
      block(monitoringBicep, /^resource applicationInsights 'Microsoft\.Insights\/components@/m),
    );
    expect(component).toMatch(/\bDisableLocalAuth: true\b/);
  });

  it("gets the app's telemetry with a token of the app's identity", () => {
    expect(platformSettings.get("APPLICATIONINSIGHTS_AUTHENTICATION_STRING")).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep (or azd) interpolation, matched as text
      "'ClientId=${identity.outputs.clientId};Authorization=AAD'",
    );
  });

  it("lets that identity publish, on the Application Insights component", () => {
    expect(rolesGrantedToApp().has("monitoringMetricsPublisher")).toBe(true);
    expect(scopeOfAppRole("monitoringMetricsPublisher")).toBe("applicationInsights");
    expect(accessBicep).toMatch(
      /^resource applicationInsights 'Microsoft\.Insights\/components@[\d-]+' existing = \{\s+name: applicationInsightsName\s+\}/m,
    );
  });
});
