import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { configSchema, isMultiTenant } from "../../src/config";
import { routeTable } from "../../src/triggers/routes";
import { block, code } from "../support/bicep-text";

/**
 * Callers in Azure, read from the Bicep as text: the app runs AUTH_MODE=entra and never keys; its
 * authority is the deployment's own tenant; its audience is an app registration that is either made
 * through the Microsoft Graph Bicep extension or named by authClientId, and both paths reach the
 * settings and Easy Auth; Easy Auth, when on, answers 401 and lets the anonymous routes through.
 */
// INFRA_TEST_ROOT: check another copy of the repository's infra/ (e.g. an older one) instead.
const ROOT = process.env.INFRA_TEST_ROOT ?? path.join(__dirname, "..", "..");
const read = (file: string) => readFileSync(path.join(ROOT, "infra", file), "utf8");
const mainBicep = read("main.bicep");
const apiBicep = read("app/api.bicep");
const registrationBicep = read("core/security/app-registration.bicep");
const registrationApiBicep = read("core/security/app-registration-api.bicep");
const parameters = JSON.parse(read("main.parameters.json")).parameters as Record<string, { value: unknown }>;

/** `NAME: value` of main.bicep's `var <name> = { ... }`, comments dropped. */
function settings(variable: string): Map<string, string> {
  const body = code(block(mainBicep, `var ${variable} = {`));
  return new Map(
    [...body.matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*): (.+)$/gm)].map((m) => [m[1] ?? "", (m[2] ?? "").trim()]),
  );
}

/** The expression of a one-line `var <name> = <expression>` of main.bicep. */
function variable(name: string): string {
  const match = new RegExp(`^var ${name} = (.+)$`, "m").exec(code(mainBicep));
  if (!match?.[1]) throw new Error(`main.bicep has no one-line var ${name}`);
  return match[1].trim();
}

/** The decorators and declaration of `param <name>` in a Bicep file. */
function param(source: string, name: string): { declaration: string; decorators: string } {
  const lines = source.split(/\r?\n/);
  const at = lines.findIndex((line) => new RegExp(`^param ${name}\\b`).test(line));
  if (at < 0) throw new Error(`no param ${name}`);
  let first = at;
  while (first > 0 && /^@/.test(lines[first - 1] ?? "")) first--;
  return { declaration: lines[at] ?? "", decorators: lines.slice(first, at).join("\n") };
}

/** Every file under infra/, with its text. */
function infraFiles(directory = path.join(ROOT, "infra")): [string, string][] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry): [string, string][] => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return infraFiles(full);
    return [[path.relative(ROOT, full), readFileSync(full, "utf8")]];
  });
}

const serviceSettings = settings("serviceSettings");
const platformSettings = settings("platformSettings");
const apiModule = code(block(mainBicep, /^module api 'app\/api\.bicep' = /m));

describe("infra: the app deploys AUTH_MODE=entra, never keys", () => {
  it("sets AUTH_MODE to the literal 'entra', with no parameter to change it", () => {
    expect(serviceSettings.get("AUTH_MODE")).toBe("'entra'");
    expect(platformSettings.has("AUTH_MODE")).toBe(false);
    expect(mainBicep).not.toMatch(/^param authMode\b/im);
    expect(Object.keys(parameters).filter((name) => /auth_?mode/i.test(name))).toEqual([]);
  });

  it("has no Bicep or parameter file under infra/ that sets or passes keys as the mode", () => {
    const files = infraFiles().filter(([file]) => /\.(?:bicep|json)$/.test(file));
    expect(files.length).toBeGreaterThanOrEqual(8);
    const keyed = files
      .filter(([file, text]) => /AUTH_MODE\W{0,8}'?keys\b/i.test(file.endsWith(".bicep") ? code(text) : text))
      .map(([file]) => file);
    expect(keyed).toEqual([]);
  });
});

describe("infra: AUTH_AUTHORITY and the tenants come from the deployment", () => {
  const authority = serviceSettings.get("AUTH_AUTHORITY");

  it("builds AUTH_AUTHORITY from the cloud's login endpoint and the deployment's tenant (v2)", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep (or azd) interpolation, matched as text
    expect(authority).toBe("'${environment().authentication.loginEndpoint}${tenant().tenantId}/v2.0'");
    expect(serviceSettings.get("AUTH_ALLOWED_TENANTS")).toBe("tenant().tenantId");
  });

  it("gives src/config.ts an authority it accepts, for one tenant, in every cloud", () => {
    const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const endpoints = [
      "https://login.microsoftonline.com/",
      "https://login.chinacloudapi.cn/",
      "https://login.microsoftonline.us/",
    ];
    for (const endpoint of endpoints) {
      const value = (authority ?? "")
        .slice(1, -1)
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep interpolation, replaced as text
        .replace("${environment().authentication.loginEndpoint}", endpoint)
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep interpolation, replaced as text
        .replace("${tenant().tenantId}", tenant);
      expect(value).toBe(`${endpoint}${tenant}/v2.0`);
      expect(configSchema.shape.AUTH_AUTHORITY.safeParse(value).success).toBe(true);
      expect(isMultiTenant(value)).toBe(false);
    }
    expect(configSchema.shape.AUTH_ALLOWED_TENANTS.safeParse(tenant).success).toBe(true);
  });

  it("makes the operator the first Owner unless AUTH_ADMIN_PRINCIPALS is given", () => {
    expect(serviceSettings.get("AUTH_ADMIN_PRINCIPALS")).toBe(
      "!empty(authAdminPrincipals) ? authAdminPrincipals : principalId",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: azd interpolation, matched as text
    expect(parameters.principalId?.value).toBe("${AZURE_PRINCIPAL_ID}");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: azd interpolation, matched as text
    expect(parameters.authAdminPrincipals?.value).toBe("${AUTH_ADMIN_PRINCIPALS}");
  });

  it("bounds AUTH_CACHE_SECONDS as src/config.ts does", () => {
    const { declaration, decorators } = param(mainBicep, "authCacheSeconds");
    expect(declaration).toBe("param authCacheSeconds int = 30");
    const min = Number(/@minValue\((\d+)\)/.exec(decorators)?.[1]);
    const max = Number(/@maxValue\((\d+)\)/.exec(decorators)?.[1]);
    const schema = configSchema.shape.AUTH_CACHE_SECONDS;
    expect([min, max].map((value) => schema.safeParse(String(value)).success)).toEqual([true, true]);
    expect([min - 1, max + 1].map((value) => schema.safeParse(String(value)).success)).toEqual([
      false,
      false,
    ]);
    expect(serviceSettings.get("AUTH_CACHE_SECONDS")).toBe("string(authCacheSeconds)");
  });
});

describe("infra: the app registration, made through Microsoft Graph or given by client id", () => {
  it("makes one through the Graph extension only when authClientId is empty", () => {
    const { declaration } = param(mainBicep, "authClientId");
    expect(declaration).toBe("param authClientId string = ''");
    expect(mainBicep).toMatch(
      /^module appRegistration 'core\/security\/app-registration\.bicep' = if \(empty\(authClientId\)\) \{/m,
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: azd interpolation, matched as text
    expect(parameters.authClientId?.value).toBe("${AUTH_CLIENT_ID}");
  });

  it("takes the client id from whichever path ran, and uses it for the settings and for Easy Auth", () => {
    expect(variable("authAppClientId")).toBe(
      "empty(authClientId) ? appRegistration!.outputs.appId : authClientId",
    );
    expect(variable("authAudiences")).toMatch(
      /^concat\(\[authAppClientId, 'api:\/\/\$\{authAppClientId\}'\], empty\(authAppIdUri\) \? \[\] : \[authAppIdUri\]\)$/,
    );
    expect(serviceSettings.get("AUTH_AUDIENCE")).toBe("join(authAudiences, ',')");
    expect(apiModule).toMatch(/\bauthClientId: authAppClientId\b/);
    expect(apiModule).toMatch(/\bauthAudiences: authAudiences\b/);
    expect(apiModule).toMatch(/\bauthIssuer: serviceSettings\.AUTH_AUTHORITY\b/);
  });

  it("never outputs AUTH_CLIENT_ID, which azd would feed back and so stop managing the registration", () => {
    const outputs = [...code(mainBicep).matchAll(/^output (\w+) /gm)].map((m) => m[1]);
    expect(outputs).not.toContain("AUTH_CLIENT_ID");
    expect(outputs).toContain("SERVICE_API_CLIENT_ID");
  });

  it("enables the extension under the alias the modules name, pinned to a version", () => {
    const config = JSON.parse(read("bicepconfig.json"));
    expect(config.extensions?.microsoftGraphV1).toMatch(
      /^br:mcr\.microsoft\.com\/bicep\/extensions\/microsoftgraph\/v1\.0:\d+\.\d+\.\d+$/,
    );
    for (const source of [registrationBicep, registrationApiBicep]) {
      expect(source).toMatch(/^extension microsoftGraphV1$/m);
    }
  });

  it("creates the registration, its service principal, then its App ID URI from its own appId", () => {
    const created = code(
      block(registrationBicep, /^resource registration 'Microsoft\.Graph\/applications@v1\.0' = /m),
    );
    expect(created).toMatch(/\buniqueName: uniqueName\b/);
    // Pass 1 declares no identifier URI or api settings: provisioning again must not clear them.
    expect(created).not.toMatch(/identifierUris|api:/);
    expect(registrationBicep).toMatch(
      /resource servicePrincipal 'Microsoft\.Graph\/servicePrincipals@v1\.0' = \{\s+appId: registration\.appId\s+\}/,
    );
    const api = code(
      block(registrationApiBicep, /^resource registration 'Microsoft\.Graph\/applications@v1\.0' = /m),
    );
    expect(api).toMatch(/\buniqueName: uniqueName\b/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep interpolation, matched as text
    expect(block(api, "identifierUris: [")).toContain("'api://${appId}'");
    expect(api).toMatch(/\brequestedAccessTokenVersion: 2\b/);
  });

  it("pre-authorizes the Azure CLI only after the scope exists (a later pass than the one making it)", () => {
    const pass2 = code(block(registrationBicep, /^module exposedApi 'app-registration-api\.bicep' = /m));
    const pass3 = code(
      block(registrationBicep, /^module preAuthorizedClients 'app-registration-api\.bicep' = /m),
    );
    expect(pass2).toMatch(/\bappId: registration\.appId\b/);
    expect(pass2).toMatch(/\bpreAuthorizedClientIds: \[\]/);
    expect(pass3).toMatch(/\bpreAuthorizedClientIds: \[\s+azureCliClientId\s+\]/);
    expect(pass3).toMatch(/\bdependsOn: \[\s+exposedApi\s+\]/);
    expect(registrationBicep).toContain("var azureCliClientId = '04b07795-8ddb-461a-bbee-02f9e1bf7b46'");
  });

  it("declares no app roles: the service decides by its own scoped role assignments", () => {
    for (const source of [registrationBicep, registrationApiBicep])
      expect(code(source)).not.toMatch(/appRoles/);
  });
});

describe("infra: Easy Auth, an optional outer gate", () => {
  const easyAuth = code(block(apiBicep, /^resource easyAuth 'Microsoft\.Web\/sites\/config@[\d-]+' = /m));

  it("is off unless asked for, and written either way so that turning it off takes effect", () => {
    expect(param(mainBicep, "enableEasyAuth").declaration).toBe("param enableEasyAuth bool = false");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: azd interpolation, matched as text
    expect(parameters.enableEasyAuth?.value).toBe("${ENABLE_EASY_AUTH=false}");
    expect(apiModule).toMatch(/\benableEasyAuth: enableEasyAuth\b/);
    expect(apiBicep).toMatch(/^resource easyAuth 'Microsoft\.Web\/sites\/config@[\d-]+' = \{/m);
    expect(easyAuth).toMatch(/\bname: 'authsettingsV2'/);
    expect(block(easyAuth, "platform: {")).toMatch(/\benabled: enableEasyAuth\b/);
  });

  it("answers 401 to a request without a valid token, never a redirect to a sign-in page", () => {
    const validation = block(easyAuth, "globalValidation: {");
    expect(validation).toMatch(/\brequireAuthentication: true\b/);
    expect(validation).toMatch(/\bunauthenticatedClientAction: 'Return401'/);
    expect(validation).toMatch(/\bexcludedPaths: easyAuthExcludedPaths\b/);
  });

  it("lets exactly the anonymous routes through: /health and /openapi.json", () => {
    const excluded = [...block(apiBicep, "param easyAuthExcludedPaths array = [").matchAll(/'([^']*)'/g)].map(
      (m) => m[1],
    );
    expect(excluded.sort()).toEqual(["/health", "/openapi.json"]);
    for (const excludedPath of excluded) {
      const route = routeTable.find((candidate) => `/${candidate.route}` === excludedPath);
      expect({ excludedPath, authLevel: route?.authLevel }).toEqual({ excludedPath, authLevel: "anonymous" });
    }
  });

  it("checks tokens of the registration, from the tenant's issuer, for the service's audiences", () => {
    const entra = block(easyAuth, "azureActiveDirectory: {");
    expect(entra).toMatch(/\benabled: true\b/);
    expect(block(entra, "registration: {")).toMatch(/clientId: authClientId\s+openIdIssuer: authIssuer/);
    expect(block(entra, "validation: {")).toMatch(/\ballowedAudiences: authAudiences\b/);
    // Any client of the tenant passes the gate; the role assignments decide the rest.
    expect(entra).not.toMatch(/defaultAuthorizationPolicy/);
    expect(entra).not.toMatch(/clientSecret/);
  });
});
