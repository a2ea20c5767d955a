import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";

/**
 * infra/ as Azure receives it: the ARM JSON the real Bicep CLI compiled (`npm run infra:check`, which
 * .ci/run runs before the tests: infra/scripts/bicep-cli.js, into .local/infra-json/). When that JSON
 * is missing or older than the Bicep and the .NET SDK is here, it is compiled first. Without the
 * .NET SDK (a user's laptop) there is nothing to compile with: each check then asserts exactly that.
 */
const ROOT = path.join(__dirname, "..", "..");
const INFRA = path.join(ROOT, "infra");
const OUT = path.join(ROOT, ".local", "infra-json");
const SCRIPT = path.join(INFRA, "scripts", "bicep-cli.js");
export const NO_DOTNET =
  "infra check skipped: no .NET SDK (dotnet) on PATH; the infra check runs in CI (.ci/run)";

export type Json = Record<string, unknown>;
export interface Template {
  parameters: Record<string, { type: string; defaultValue?: unknown; metadata?: { description?: string } }>;
  variables?: Record<string, unknown>;
  resources: Resource[];
  outputs: Record<string, { type: string; value: string }>;
}
export interface Resource {
  type: string;
  apiVersion: string;
  name: string;
  condition?: string;
  dependsOn?: string[];
  properties: Json & { template?: Template; parameters?: Record<string, { value: unknown }> };
}

export function hasDotnet(): boolean {
  const probe = spawnSync("dotnet", ["--version"], { encoding: "utf8" });
  return !probe.error && probe.status === 0;
}

function newestInfraChange(dir = INFRA): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return newestInfraChange(full);
      return /\.bicep$|^bicepconfig\.json$/.test(entry.name) ? statSync(full).mtimeMs : 0;
    }),
  );
}

export type CompiledInfra = { main: Template; manifest: Json } | { skipped: string };

/** The compiled main.json and manifest, built now if missing or stale and .NET is here. */
export function compiledInfra(): CompiledInfra {
  const manifestFile = path.join(OUT, "manifest.json");
  const fresh = () => existsSync(manifestFile) && statSync(manifestFile).mtimeMs >= newestInfraChange();
  if (!fresh()) {
    const result = spawnSync(process.execPath, [SCRIPT, "build", "--quiet"], { encoding: "utf8" });
    const said = `${result.stdout}${result.stderr}`.trim();
    if (said === NO_DOTNET && !hasDotnet()) return { skipped: said };
    if (result.status !== 0 || !fresh())
      throw new Error(`node ${path.relative(ROOT, SCRIPT)} build:\n${said}`);
  }
  return {
    main: JSON.parse(readFileSync(path.join(OUT, "main.json"), "utf8")) as Template,
    manifest: JSON.parse(readFileSync(manifestFile, "utf8")) as Json,
  };
}

/**
 * A test body running `check` on the compiled template; without .NET it asserts that the check said
 * it was skipped and why (the only way such a test passes without the JSON).
 */
export function withCompiled(
  state: CompiledInfra,
  check: (main: Template, manifest: Json) => void,
): () => void {
  return () => {
    if ("skipped" in state) {
      expect(hasDotnet()).toBe(false);
      expect(state.skipped).toBe(NO_DOTNET);
      return;
    }
    check(state.main, state.manifest);
  };
}

/** main.json's nested deployment of that name. */
export function deployment(main: Template, name: string): Resource {
  const found = main.resources.find((r) => r.type === "Microsoft.Resources/deployments" && r.name === name);
  if (!found) throw new Error(`main.json has no deployment ${name}`);
  return found;
}
