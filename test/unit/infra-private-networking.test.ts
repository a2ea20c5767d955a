import { readFileSync } from "node:fs";
import * as path from "node:path";
import {
  compiledInfra,
  deployment,
  type Json,
  type Resource,
  type Template,
  withCompiled,
} from "../support/compiled-infra";

/**
 * Issue 42, item 7: opt-in private networking (main.bicep's privateNetworking, azd env
 * PRIVATE_NETWORKING). Asserted on the ARM JSON the real Bicep CLI compiled (npm run infra:check, into
 * .local/infra-json/; built here if missing or stale, as infra-compiled.test.ts does). One template
 * serves both settings: what privateNetworking adds is a set of deployments with the condition
 * [parameters('privateNetworking')], and what it changes on the accounts is an if() on it, which
 * these tests evaluate for true and for false.
 */
const INFRA = path.join(__dirname, "..", "..", "infra");
const CONDITION = "[parameters('privateNetworking')]";
const state = compiledInfra();
const withTemplate = (check: (main: Template, manifest: Json) => void) => withCompiled(state, check);

function nested(main: Template, name: string): Template {
  const template = deployment(main, name).properties.template;
  if (!template) throw new Error(`deployment ${name} has no inline template`);
  return template;
}

function resourceOf(template: Template, type: string): Resource {
  const found = template.resources.filter((r) => r.type === type);
  if (found.length !== 1) throw new Error(`${found.length} resources of type ${type}`);
  return found[0] as Resource;
}

/** Every resource type in a template, nested deployments' included. */
function types(template: Template): string[] {
  return template.resources.flatMap((r) => [
    r.type,
    ...(r.properties?.template ? types(r.properties.template) : []),
  ]);
}

/**
 * The value of an ARM expression of the form [if(parameters('privateNetworking'), A, B)] for one
 * setting, where A and B are string literals or createObject() of literals (what the accounts use).
 */
function evaluate(expression: unknown, privateNetworking: boolean): unknown {
  if (typeof expression !== "string" || !expression.startsWith("[")) return expression;
  const text = expression.slice(1, -1);
  let i = 0;
  const skipSpace = () => {
    while (text[i] === " ") i++;
  };
  const parse = (): unknown => {
    skipSpace();
    if (text[i] === "'") {
      const end = text.indexOf("'", i + 1);
      const value = text.slice(i + 1, end);
      i = end + 1;
      return value;
    }
    const start = i;
    while (/\w/.test(text[i] as string)) i++;
    const fn = text.slice(start, i);
    if (text[i] !== "(") throw new Error(`not a call at ${start}: ${text}`);
    i++;
    const args: unknown[] = [];
    skipSpace();
    while (text[i] !== ")") {
      args.push(parse());
      skipSpace();
      if (text[i] === ",") i++;
      skipSpace();
    }
    i++;
    if (fn === "parameters") {
      if (args[0] !== "privateNetworking") throw new Error(`unexpected parameter ${String(args[0])}`);
      return privateNetworking;
    }
    if (fn === "if") return args[0] ? args[1] : args[2];
    if (fn === "createObject") {
      const object: Json = {};
      for (let k = 0; k < args.length; k += 2) object[String(args[k])] = args[k + 1];
      return object;
    }
    throw new Error(`unsupported function ${fn}`);
  };
  const value = parse();
  if (i !== text.length) throw new Error(`unparsed: ${text.slice(i)}`);
  return value;
}

const PRIVATE_DEPLOYMENTS = [
  "network",
  "privateEndpointBlob",
  "privateEndpointQueue",
  "privateEndpointTable",
  "privateEndpointCosmos",
  "privateEndpointKeyVault",
];

describe("infra/ compiled: opt-in private networking (issue 42, item 7)", () => {
  it(
    "has a privateNetworking parameter, false by default, mapped from PRIVATE_NETWORKING",
    withTemplate((main) => {
      expect(main.parameters.privateNetworking).toMatchObject({ type: "bool", defaultValue: false });
      expect(main.parameters.privateNetworking?.metadata?.description).toMatch(/^PRIVATE_NETWORKING: /);
      const mapped = JSON.parse(readFileSync(path.join(INFRA, "main.parameters.json"), "utf8")) as {
        parameters: Record<string, unknown>;
      };
      expect(mapped.parameters.privateNetworking).toEqual({ value: "$" + "{PRIVATE_NETWORKING=false}" });
    }),
  );

  it(
    "deploys the VNet and the private endpoints only when privateNetworking is true, and nothing else of the network",
    withTemplate((main) => {
      const conditioned = main.resources.filter((r) => r.condition === CONDITION).map((r) => r.name);
      expect(conditioned).toEqual(PRIVATE_DEPLOYMENTS);
      // Every Microsoft.Network resource is inside one of those deployments: with the parameter
      // false, none is deployed.
      const outside = main.resources.filter((r) => !PRIVATE_DEPLOYMENTS.includes(r.name));
      expect(
        outside
          .flatMap((r) => types({ ...main, resources: [r] }))
          .filter((t) => t.startsWith("Microsoft.Network/")),
      ).toEqual([]);
      expect(nested(main, "network").resources.map((r) => r.type)).toEqual([
        "Microsoft.Network/virtualNetworks",
      ]);
    }),
  );

  it(
    "delegates the app's subnet to Microsoft.App/environments (Flex Consumption) and keeps a subnet for private endpoints",
    withTemplate((main) => {
      const network = nested(main, "network");
      const vnet = resourceOf(network, "Microsoft.Network/virtualNetworks").properties as {
        subnets: { name: string; properties: Json }[];
      };
      expect(vnet.subnets).toEqual([
        {
          name: "[parameters('appSubnetName')]",
          properties: {
            addressPrefix: "[parameters('appSubnetPrefix')]",
            delegations: [
              { name: "flex-consumption", properties: { serviceName: "Microsoft.App/environments" } },
            ],
          },
        },
        {
          name: "[parameters('privateEndpointSubnetName')]",
          properties: {
            addressPrefix: "[parameters('privateEndpointSubnetPrefix')]",
            privateEndpointNetworkPolicies: "Disabled",
          },
        },
      ]);
      expect(network.parameters.appSubnetName?.defaultValue).toBe("app");
      expect(network.parameters.privateEndpointSubnetName?.defaultValue).toBe("private-endpoints");
    }),
  );

  it(
    "puts a private endpoint, its private DNS zone, the zone's VNet link and a DNS zone group on blob, queue, table, Cosmos DB (Sql) and Key Vault (vault)",
    withTemplate((main) => {
      const expected: Record<string, { account: string; groupId: string; zone: string }> = {
        privateEndpointBlob: {
          account: "storage",
          groupId: "blob",
          zone: "[format('privatelink.blob.{0}', environment().suffixes.storage)]",
        },
        privateEndpointQueue: {
          account: "storage",
          groupId: "queue",
          zone: "[format('privatelink.queue.{0}', environment().suffixes.storage)]",
        },
        privateEndpointTable: {
          account: "storage",
          groupId: "table",
          zone: "[format('privatelink.table.{0}', environment().suffixes.storage)]",
        },
        privateEndpointCosmos: { account: "cosmos", groupId: "Sql", zone: "privatelink.documents.azure.com" },
        privateEndpointKeyVault: {
          account: "keyVault",
          groupId: "vault",
          zone: "privatelink.vaultcore.azure.net",
        },
      };
      for (const [name, want] of Object.entries(expected)) {
        const params = deployment(main, name).properties.parameters ?? {};
        expect({ name, groupId: params.groupId?.value, zone: params.privateDnsZoneName?.value }).toEqual({
          name,
          groupId: want.groupId,
          zone: want.zone,
        });
        expect(String(params.privateLinkServiceId?.value)).toMatch(
          new RegExp(
            `'Microsoft\\.Resources/deployments', '${want.account}'\\), '[\\d-]+'\\)\\.outputs\\.id\\.value\\]$`,
          ),
        );
        expect(String(params.subnetId?.value)).toMatch(
          /'network'\), '[\d-]+'\)\.outputs\.privateEndpointSubnetId\.value\]$/,
        );
        expect(String(params.virtualNetworkId?.value)).toMatch(
          /'network'\), '[\d-]+'\)\.outputs\.id\.value\]$/,
        );

        const template = nested(main, name);
        expect(resourceOf(template, "Microsoft.Network/privateDnsZones")).toMatchObject({
          name: "[parameters('privateDnsZoneName')]",
          location: "global",
        });
        expect(
          resourceOf(template, "Microsoft.Network/privateDnsZones/virtualNetworkLinks").properties,
        ).toEqual({
          registrationEnabled: false,
          virtualNetwork: { id: "[parameters('virtualNetworkId')]" },
        });
        expect(resourceOf(template, "Microsoft.Network/privateEndpoints").properties).toEqual({
          subnet: { id: "[parameters('subnetId')]" },
          privateLinkServiceConnections: [
            {
              name: "[parameters('name')]",
              properties: {
                privateLinkServiceId: "[parameters('privateLinkServiceId')]",
                groupIds: ["[parameters('groupId')]"],
              },
            },
          ],
        });
        const group = resourceOf(template, "Microsoft.Network/privateEndpoints/privateDnsZoneGroups")
          .properties as {
          privateDnsZoneConfigs: { properties: { privateDnsZoneId: string } }[];
        };
        expect(group.privateDnsZoneConfigs).toHaveLength(1);
        expect(group.privateDnsZoneConfigs[0]?.properties.privateDnsZoneId).toBe(
          "[resourceId('Microsoft.Network/privateDnsZones', parameters('privateDnsZoneName'))]",
        );
      }
    }),
  );

  it(
    "integrates the site with the app subnet when true, sets no subnet when false, and waits for the private endpoints",
    withTemplate((main) => {
      const api = deployment(main, "api");
      expect(String(api.properties.parameters?.virtualNetworkSubnetId as unknown)).toMatch(
        /^\[if\(parameters\('privateNetworking'\), createObject\('value', reference\(.*'network'\), '[\d-]+'\)\.outputs\.appSubnetId\.value\), createObject\('value', ''\)\)\]$/,
      );
      const site = resourceOf(nested(main, "api"), "Microsoft.Web/sites").properties;
      // Empty (privateNetworking false): null, which ARM leaves out of the request.
      expect(site.virtualNetworkSubnetId).toBe(
        "[if(empty(parameters('virtualNetworkSubnetId')), null(), parameters('virtualNetworkSubnetId'))]",
      );
      expect(nested(main, "api").parameters.virtualNetworkSubnetId?.defaultValue).toBe("");
      for (const name of PRIVATE_DEPLOYMENTS.filter((n) => n !== "network")) {
        expect(api.dependsOn?.some((d) => d.endsWith(`'Microsoft.Resources/deployments', '${name}')]`))).toBe(
          true,
        );
      }
    }),
  );

  it.each([true, false])(
    "turns public network access off on storage, Cosmos DB and Key Vault only when privateNetworking is %s",
    (privateNetworking) =>
      withTemplate((main) => {
        const access = privateNetworking ? "Disabled" : "Enabled";
        for (const name of ["storage", "cosmos", "keyVault"]) {
          expect(deployment(main, name).properties.parameters?.privateNetworking).toEqual({
            value: "[parameters('privateNetworking')]",
          });
        }
        const storage = resourceOf(nested(main, "storage"), "Microsoft.Storage/storageAccounts").properties;
        expect(evaluate(storage.publicNetworkAccess, privateNetworking)).toBe(access);
        expect(evaluate(storage.networkAcls, privateNetworking)).toEqual(
          privateNetworking
            ? { defaultAction: "Deny", bypass: "None" }
            : { defaultAction: "Allow", bypass: "AzureServices" },
        );
        const cosmos = resourceOf(nested(main, "cosmos"), "Microsoft.DocumentDB/databaseAccounts").properties;
        expect(evaluate(cosmos.publicNetworkAccess, privateNetworking)).toBe(access);
        const vault = resourceOf(nested(main, "keyVault"), "Microsoft.KeyVault/vaults").properties;
        expect(evaluate(vault.publicNetworkAccess, privateNetworking)).toBe(access);
        // The modules' own default is today's public setting.
        for (const name of ["storage", "cosmos", "keyVault"]) {
          expect(nested(main, name).parameters.privateNetworking).toMatchObject({
            type: "bool",
            defaultValue: false,
          });
        }
      })(),
  );

  it(
    "outputs the VNet and the private-endpoint subnet for endpoint owners' Service Bus private endpoints, empty when off",
    withTemplate((main) => {
      expect(main.outputs.AZURE_PRIVATE_ENDPOINT_SUBNET_ID?.value).toMatch(
        /^\[if\(parameters\('privateNetworking'\), reference\(.*'network'\), '[\d-]+'\)\.outputs\.privateEndpointSubnetId\.value, ''\)\]$/,
      );
      expect(main.outputs.AZURE_VIRTUAL_NETWORK_ID?.value).toMatch(
        /^\[if\(parameters\('privateNetworking'\), reference\(.*'network'\), '[\d-]+'\)\.outputs\.id\.value, ''\)\]$/,
      );
    }),
  );
});
