import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

/**
 * What azd itself must provide: a version whose packaging keeps node_modules with
 * `remoteBuild: false` (azure.yaml), and where it keeps the encryption key, which infra/README.md
 * must say right, since a lost key cannot be recovered.
 */
// INFRA_TEST_ROOT: check another copy of the repository (e.g. an older one) instead.
const ROOT = process.env.INFRA_TEST_ROOT ?? path.join(__dirname, "..", "..");
const azureYaml = readFileSync(path.join(ROOT, "azure.yaml"), "utf8");
const readme = readFileSync(path.join(ROOT, "infra", "README.md"), "utf8");
const mainBicep = readFileSync(path.join(ROOT, "infra", "main.bicep"), "utf8");
const parameters = JSON.parse(readFileSync(path.join(ROOT, "infra", "main.parameters.json"), "utf8"));

/**
 * azd 1.23.12 (Azure/azure-dev#7223) is the first to keep node_modules in a function app's zip
 * with `remoteBuild: false` when the packaged folder has no .funcignore; earlier versions leave it
 * out, and the app would start without its dependencies.
 */
const MIN_AZD = [1, 23, 12];

function version(text: string): number[] {
  return text.split(".").map((part) => Number.parseInt(part, 10));
}

function atLeast(actual: number[], wanted: number[]): boolean {
  for (let i = 0; i < wanted.length; i++) {
    const a = actual[i] ?? 0;
    const w = wanted[i] ?? 0;
    if (a !== w) return a > w;
  }
  return true;
}

describe("azure.yaml", () => {
  const lines = azureYaml.split(/\r?\n/);

  it("packages without remote build, from a staged folder", () => {
    expect(lines).toContain("    remoteBuild: false");
    expect(lines).toContain("    dist: .local/azure-package");
  });

  it("requires an azd whose packaging keeps node_modules with remoteBuild: false", () => {
    const start = lines.indexOf("requiredVersions:");
    expect(start).toBeGreaterThanOrEqual(0);
    const azd = /^ {2}azd: "(.+)"$/.exec(lines[start + 1] ?? "")?.[1] ?? "";
    // A lower bound only (">= x.y.z"): an upper one would lock out every later fix.
    const bound = /^>=\s*(\d+\.\d+\.\d+)$/.exec(azd)?.[1];
    expect({ azd, bound }).toEqual({ azd, bound: expect.any(String) });
    expect(atLeast(version(bound ?? "0.0.0"), MIN_AZD)).toBe(true);
  });
});

describe("infra/README.md on where azd keeps SECRETS_ENCRYPTION_KEY", () => {
  /** The @secure() parameter main.parameters.json fills from SECRETS_ENCRYPTION_KEY. */
  const parameter =
    Object.entries(parameters.parameters as Record<string, { value?: unknown }>).find(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Bicep (or azd) interpolation, matched as text
      ([, entry]) => entry.value === "${SECRETS_ENCRYPTION_KEY}",
    )?.[0] ?? "";

  it("finds the parameter, a secure one (azd prompts for it when the variable is not set)", () => {
    expect(parameter).not.toBe("");
    expect(mainBicep).toMatch(new RegExp(`^@secure\\(\\)\\n(?:@.*\\n)*param ${parameter} string$`, "m"));
  });

  it("names both places: .env when set, config.json and azd's vault when prompted", () => {
    expect(readme).toContain("`.azure/<environment>/.env`");
    expect(readme).toContain(`\`infra.parameters.${parameter}\``);
    expect(readme).toContain("`.azure/<environment>/config.json`");
    expect(readme).toContain("`~/.azd/vaults/<id>.json`");
  });

  it("never takes the key in use from azd's .env alone (a prompted key is not there)", () => {
    expect(readme).not.toMatch(/=\s*"?\$\(azd env get-value SECRETS_ENCRYPTION_KEY\)/);
    expect(readme).toMatch(/OLD=\$\(az keyvault secret show [^)]*--name secrets-encryption-key/);
  });
});

describe("azure.yaml's postdeploy hook, which refreshes the Key Vault references", () => {
  const SCRIPT = "infra/scripts/refresh-key-vault-references.js";
  const lines = azureYaml.split(/\r?\n/);

  it("runs the refresh script after the api service deploys, on every OS, without failing azd up", () => {
    const start = lines.indexOf("      postdeploy:");
    expect(start).toBeGreaterThan(lines.indexOf("  api:"));
    expect(lines.slice(start + 1, start + 9)).toEqual([
      "        posix:",
      "          shell: sh",
      `          run: node ${SCRIPT}`,
      "          continueOnError: true",
      "        windows:",
      "          shell: pwsh",
      `          run: node ${SCRIPT}`,
      "          continueOnError: true",
    ]);
  });

  it("is documented in infra/README.md", () => {
    expect(readme).toContain("`postdeploy`");
    expect(readme).toContain(SCRIPT);
  });
});

describe("infra/scripts/refresh-key-vault-references.js", () => {
  // Plain CommonJS, run by node from azure.yaml: required, not imported, as it has no types.
  const script = require("../../infra/scripts/refresh-key-vault-references.js") as {
    refreshPath(env: Record<string, string | undefined>): string;
    secretsState(body: unknown): { state: string; reason?: string };
  };
  const env = {
    AZURE_SUBSCRIPTION_ID: "00000000-0000-0000-0000-000000000001",
    AZURE_RESOURCE_GROUP: "rg-twins-dev",
    AZURE_FUNCTION_APP_NAME: "func-abc123",
  };

  it("posts the refresh to the app's Resource Manager path, left to az to put on its cloud's host", () => {
    expect(script.refreshPath(env)).toBe(
      "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-twins-dev/providers/Microsoft.Web/sites/func-abc123/config/configreferences/appsettings/refresh?api-version=2022-03-01",
    );
    expect(() => script.refreshPath({ ...env, AZURE_FUNCTION_APP_NAME: "" })).toThrow(
      /AZURE_FUNCTION_APP_NAME/,
    );
  });

  it("reads /health as the service writes it: pending with the reason, ok without a secrets check", () => {
    const reason = "SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference";
    expect(
      script.secretsState({
        status: "unavailable",
        checks: { cosmos: "ok", storage: "ok", secrets: "unavailable" },
        reasons: { secrets: reason },
      }),
    ).toEqual({ state: "pending", reason });
    expect(
      script.secretsState({ status: "unavailable", checks: { cosmos: "unavailable", storage: "ok" } }),
    ).toEqual({
      state: "ok",
    });
    for (const notAReport of [null, "Service Unavailable", { error: { code: "x" } }])
      expect(script.secretsState(notAReport)).toEqual({ state: "unknown" });
  });
});

describe("the refresh script, run as the hook runs it", () => {
  const SCRIPT = path.join(ROOT, "infra", "scripts", "refresh-key-vault-references.js");
  let server: Server;
  let health: unknown;
  let baseUrl = "";

  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(health));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    removeTempDirs();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Runs the script with no az anywhere on PATH: any call to az fails as on a machine without it. */
  function run(): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [SCRIPT], {
        env: {
          PATH: tempDir("no-az-"),
          AZURE_SUBSCRIPTION_ID: "00000000-0000-0000-0000-000000000001",
          AZURE_RESOURCE_GROUP: "rg",
          AZURE_FUNCTION_APP_NAME: "func",
          SERVICE_API_URI: baseUrl,
        },
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      child.on("close", (code) => resolve({ code, output }));
    });
  }

  it("leaves an app that has its key alone: no refresh, no restart", async () => {
    health = { status: "ok", checks: { cosmos: "ok", storage: "ok" } };
    const { code, output } = await run();
    expect({ code, output }).toEqual({
      code: 0,
      output: expect.stringContaining("has its Key Vault references"),
    });
  });

  it("refreshes an app whose key is pending, and says so when it cannot (no az)", async () => {
    health = {
      status: "unavailable",
      checks: { cosmos: "ok", storage: "ok", secrets: "unavailable" },
      reasons: { secrets: "SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference" },
    };
    const { code, output } = await run();
    expect(code).toBe(1);
    expect(output).toContain("GET /health: SECRETS_ENCRYPTION_KEY is an unresolved Key Vault reference.");
    expect(output).toContain("Refreshing the app's Key Vault references (round 1 of 6)");
    expect(output).toContain("Key Vault references not refreshed: the Azure CLI (az) is not installed.");
  });
});
