import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import * as path from "node:path";
import * as ts from "typescript";
import * as pulumiMasks from "../../pulumi/src/masked-secrets";
import * as connectionString from "../../src/endpoints/connection-string";
import * as deadLetterSecret from "../../src/endpoints/dead-letter-secret";

/**
 * The client and the Pulumi package build in modules of the service: its ARM paths and
 * api-versions (src/common/) and its secret masks (src/endpoints/). Whatever the packages depend on
 * themselves, those service modules, and every module they reach (type-only imports included),
 * import only Node's built-ins and relative files, so neither package comes to need zod, the
 * Functions runtime or a service SDK unnoticed.
 */
const ROOT = path.join(__dirname, "..", "..");
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

function resolveModule(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, "index.ts")]) {
    try {
      readFileSync(candidate);
      return candidate;
    } catch {}
  }
  throw new Error(`${path.relative(ROOT, from)} imports ${specifier}, which is not a TypeScript file`);
}

/** Every module reached from the entry, and the packages (non-relative imports) each one names. */
function reach(entry: string): Map<string, string[]> {
  const modules = new Map<string, string[]>();
  const pending = [path.join(ROOT, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (modules.has(file)) continue;
    const packages: string[] = [];
    modules.set(file, packages);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      if (fileName.startsWith(".")) pending.push(resolveModule(file, fileName));
      else packages.push(fileName);
    }
  }
  return modules;
}

/** Packages other than Node's built-ins named by the service's modules (src/) that the entry reaches. */
function servicePackages(entry: string): string[] {
  return [...reach(entry)]
    .filter(([file]) => path.relative(ROOT, file).startsWith(`src${path.sep}`))
    .flatMap(([file, packages]) =>
      packages.filter((name) => !BUILTINS.has(name)).map((name) => `${path.relative(ROOT, file)}: ${name}`),
    );
}

describe("dependency-free modules", () => {
  it("the client's service modules reach only Node's built-ins", () => {
    const reached = [...reach("client/index.ts").keys()].map((file) => path.relative(ROOT, file));
    expect(reached).toEqual(expect.arrayContaining(["src/common/arm-path.ts", "src/common/api-versions.ts"]));
    expect(servicePackages("client/index.ts")).toEqual([]);
  });

  it("the Pulumi package's service modules, its masks among them, reach only Node's built-ins", () => {
    const reached = [...reach("pulumi/src/index.ts").keys()].map((file) => path.relative(ROOT, file));
    expect(reached).toEqual(expect.arrayContaining(["src/endpoints/connection-string.ts"]));
    expect(servicePackages("pulumi/src/index.ts")).toEqual([]);
  });

  it("the command line's option parsing (client/cli/args.ts, for dev/ helpers too) imports only Node's built-ins", () => {
    const reached = reach("client/cli/args.ts");
    expect([...reached.keys()].map((file) => path.relative(ROOT, file))).toEqual(["client/cli/args.ts"]);
    expect([...reached.values()].flat().filter((name) => !BUILTINS.has(name))).toEqual([]);
  });

  it("the shared path and api-version modules import nothing", () => {
    for (const file of ["src/common/arm-path.ts", "src/common/api-versions.ts"]) {
      expect(reach(file).size).toBe(1);
      expect(reach(file).get(path.join(ROOT, file))).toEqual([]);
    }
  });

  it("the Pulumi package masks secrets with the service's own functions", () => {
    expect(pulumiMasks.maskConnectionString).toBe(connectionString.maskConnectionString);
    expect(pulumiMasks.maskDeadLetterSecret).toBe(deadLetterSecret.maskDeadLetterSecret);
  });
});
