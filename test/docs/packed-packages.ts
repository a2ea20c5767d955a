import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import * as path from "node:path";
import { ROOT } from "./doc-blocks";

// The two packages as another project gets them: built and packed as `npm run packages` does, then
// installed from the tarballs into a new project, offline (what they need comes from this
// repository's node_modules: the client's from the root's, the Pulumi package's from pulumi/'s
// own install). Shared by the documentation tests, the root's and the Pulumi package's.

export interface PackedPackage {
  name: string;
  /** The tarball `npm pack` wrote. */
  file: string;
  /** The node_modules its dependencies are installed in here. */
  installedIn: string;
}

const ROOT_MODULES = path.join(ROOT, "node_modules");
const PULUMI_MODULES = path.join(ROOT, "pulumi", "node_modules");

/** Runs a command; a failure throws with the command's output. */
export function run(
  command: string,
  args: string[],
  cwd = ROOT,
  env: NodeJS.ProcessEnv = process.env,
): string {
  try {
    return execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

/**
 * Builds the packages into `stage` the way `npm run packages` does, then packs them: the client,
 * and the Pulumi package when `pulumi` is true (it compiles against pulumi/node_modules, which
 * `npm ci` in pulumi/ installs; the root's install does not).
 */
export function packPackages(stage: string, { pulumi = false } = {}): PackedPackage[] {
  const folders = [path.join(stage, "client")];
  run(process.execPath, [path.join(ROOT, "client", "stage-package.js"), path.join(stage, "client")]);
  if (pulumi) {
    if (!existsSync(path.join(PULUMI_MODULES, "@pulumi", "pulumi"))) {
      throw new Error("The Pulumi package is not installed: run `npm ci` in pulumi/ (after the root's).");
    }
    const folder = path.join(stage, "pulumi");
    run(process.execPath, [
      require.resolve("typescript/bin/tsc"),
      "-p",
      path.join(ROOT, "pulumi", "tsconfig.json"),
      "--outDir",
      path.join(folder, "dist"),
    ]);
    copyFileSync(path.join(ROOT, "pulumi", "package.json"), path.join(folder, "package.json"));
    copyFileSync(path.join(ROOT, "pulumi", "README.md"), path.join(folder, "README.md"));
    folders.push(folder);
  }
  const packed = JSON.parse(run("npm", ["pack", "--json", ...folders, "--pack-destination", stage])) as {
    name: string;
    filename: string;
  }[];
  return packed.map(({ name, filename }) => ({
    name,
    file: path.join(stage, filename),
    installedIn: name === "@twin-resource-service/pulumi" ? PULUMI_MODULES : ROOT_MODULES,
  }));
}

/**
 * Installs tarballs in a project as npm would: each package, and the dependencies it declares
 * (only those: a package that requires one it does not declare fails to load), linked from where
 * they are installed here (the packages' own node_modules first, then the root's); then `extra`
 * (what the project installs itself, such as @types/node), linked the same way.
 */
export function installPacked(project: string, packages: PackedPackage[], extra: string[] = []): void {
  const from = [...new Set([...packages.map(({ installedIn }) => installedIn), ROOT_MODULES])];
  const declared = packages.flatMap(({ name, file }) => {
    const target = path.join(project, "node_modules", name);
    mkdirSync(target, { recursive: true });
    run("tar", ["-xzf", file, "-C", target, "--strip-components=1"], project);
    const manifest = JSON.parse(readFileSync(path.join(target, "package.json"), "utf8"));
    return Object.keys(manifest.dependencies ?? {});
  });
  for (const name of new Set([...declared, ...extra])) {
    const link = path.join(project, "node_modules", name);
    if (existsSync(link)) continue;
    mkdirSync(path.dirname(link), { recursive: true });
    const installed = from.map((folder) => path.join(folder, name)).find((target) => existsSync(target));
    symlinkSync(installed ?? path.join(ROOT_MODULES, name), link);
  }
}
