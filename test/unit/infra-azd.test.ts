import { readFileSync } from "node:fs";
import * as path from "node:path";

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
