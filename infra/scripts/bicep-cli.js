#!/usr/bin/env node
// The infra check (npm run infra:check, run by .ci/run): installs the pinned Bicep CLI from NuGet
// through the .NET SDK, compiles every .bicep file of infra/ to ARM JSON in .local/infra-json/ (never
// committed) and lints each with the default rules, failing on any warning or error. The compiled
// JSON is what test/unit/infra-compiled.test.ts asserts on.
//
// Offline: the Microsoft Graph extension (core/security/app-registration*.bicep) comes from a
// container registry (mcr.microsoft.com) at compile time. So the check compiles a staged copy of
// infra/ in .local/infra-offline/ where bicepconfig.json declares no extension and
// core/security/app-registration.bicep is a stand-in with the same parameters and outputs (generated
// here from the real file's declarations, so the interface cannot drift). Everything else is the real
// Bicep; the two app registration files are the only ones no check here compiles (infra/README.md).
//
// Without `dotnet` on PATH (a user's laptop) it says so and exits 0: CI runs the check.
//
//   node infra/scripts/bicep-cli.js [check|install|build|lint] [--quiet]

const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const BICEP_VERSION = "0.49.2";
const PACKAGE = "Azure.Bicep.CommandLine.linux-x64";
const ROOT = path.resolve(__dirname, "..", "..");
const INFRA = path.join(ROOT, "infra");
const LOCAL = path.join(ROOT, ".local");
const CACHE = path.join(LOCAL, "bicep-cli", BICEP_VERSION);
const STAGE = path.join(LOCAL, "infra-offline");
const OUT = path.join(LOCAL, "infra-json");
/** Files compiled only where mcr.microsoft.com is reachable (the Microsoft Graph extension). */
const GRAPH_FILES = ["core/security/app-registration.bicep", "core/security/app-registration-api.bicep"];
const STAND_IN = "core/security/app-registration.bicep";

const quiet = process.argv.includes("--quiet");
const log = (line) => {
  if (!quiet) console.log(line);
};

function hasDotnet() {
  const probe = spawnSync("dotnet", ["--version"], { encoding: "utf8" });
  return !probe.error && probe.status === 0;
}

/** The bicep executable of the pinned package, restored by `dotnet restore` into CACHE if missing. */
function install() {
  const packageDir = path.join(CACHE, "packages", PACKAGE.toLowerCase(), BICEP_VERSION);
  const found = () => {
    for (const dir of ["tools", path.join("runtimes", "linux-x64", "native")]) {
      const candidate = path.join(packageDir, dir, "bicep");
      if (fs.existsSync(candidate)) return candidate;
    }
    return undefined;
  };
  let bicep = found();
  if (!bicep) {
    // A throwaway project whose only item is a PackageDownload of the CLI: restore fetches the
    // package from the configured NuGet source into CACHE/packages and builds nothing.
    const project = path.join(CACHE, "restore", "bicep-cli.csproj");
    fs.mkdirSync(path.dirname(project), { recursive: true });
    fs.writeFileSync(
      project,
      [
        '<Project Sdk="Microsoft.NET.Sdk">',
        "  <PropertyGroup><TargetFramework>netstandard2.0</TargetFramework></PropertyGroup>",
        `  <ItemGroup><PackageDownload Include="${PACKAGE}" Version="[${BICEP_VERSION}]" /></ItemGroup>`,
        "</Project>",
        "",
      ].join("\n"),
    );
    log(`bicep: restoring ${PACKAGE} ${BICEP_VERSION} from NuGet`);
    const restore = spawnSync("dotnet", ["restore", project, "--packages", path.join(CACHE, "packages")], {
      encoding: "utf8",
      env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: "1", DOTNET_NOLOGO: "1" },
    });
    if (restore.status !== 0) {
      process.stderr.write(restore.stdout + restore.stderr);
      throw new Error(`dotnet restore of ${PACKAGE} ${BICEP_VERSION} failed`);
    }
    bicep = found();
    if (!bicep)
      throw new Error(`no bicep executable in ${packageDir} (tools/ or runtimes/linux-x64/native/)`);
  }
  fs.chmodSync(bicep, 0o755);
  const version = run(bicep, ["--version"]).stdout.trim();
  if (!version.includes(`version ${BICEP_VERSION} `))
    throw new Error(`${bicep}: ${version}, not ${BICEP_VERSION}`);
  return bicep;
}

// No telemetry; nothing here reaches a registry.
const BICEP_ENV = { ...process.env, BICEP_TRACING_ENABLED: "false", DOTNET_CLI_TELEMETRY_OPTOUT: "1" };

function run(command, args) {
  return spawnSync(command, args, { encoding: "utf8", env: BICEP_ENV });
}

/** Paths under `dir` (relative, with /) of the files whose names end with `suffix`. */
function files(dir, suffix, base = dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "scripts" ? [] : files(full, suffix, base);
      return entry.name.endsWith(suffix) ? [path.relative(base, full).split(path.sep).join("/")] : [];
    })
    .sort();
}

/**
 * A module with the real app-registration.bicep's parameters and outputs and no resources (no
 * extension), so that main.bicep compiles without the registry.
 */
function standIn(real) {
  const lines = [
    "// Stand-in written by infra/scripts/bicep-cli.js for the offline compile: the parameters and outputs",
    "// of infra/core/security/app-registration.bicep, no resources (its Microsoft Graph extension is",
    "// fetched from mcr.microsoft.com at compile time).",
  ];
  for (const m of real.matchAll(/^param (\w+) (\w+)(?: = .*)?$/gm)) {
    lines.push(`param ${m[1]} ${m[2]}`);
  }
  for (const m of real.matchAll(/^output (\w+) (\w+) = .*$/gm)) {
    if (m[2] !== "string") throw new Error(`stand-in: output ${m[1]} is a ${m[2]}, expected a string`);
    // Uses every parameter, so that lint finds none unused.
    const params = [...real.matchAll(/^param (\w+) /gm)].map((p) => `\${${p[1]}}`).join("/");
    lines.push(`output ${m[1]} string = 'stand-in:${m[1]}:${params}'`);
  }
  return `${lines.join("\n")}\n`;
}

/** infra/ as the offline compile sees it: real Bicep, no extension, the registration stood in. */
function stage() {
  fs.rmSync(STAGE, { recursive: true, force: true });
  for (const file of [...files(INFRA, ".bicep"), ...files(INFRA, ".json")]) {
    if (GRAPH_FILES.includes(file)) continue;
    const target = path.join(STAGE, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(INFRA, file), target);
  }
  const config = JSON.parse(fs.readFileSync(path.join(INFRA, "bicepconfig.json"), "utf8"));
  delete config.extensions;
  fs.writeFileSync(path.join(STAGE, "bicepconfig.json"), `${JSON.stringify(config, null, 2)}\n`);
  fs.writeFileSync(path.join(STAGE, STAND_IN), standIn(fs.readFileSync(path.join(INFRA, STAND_IN), "utf8")));
  // The files compiled: every .bicep of infra/ but the two Microsoft Graph ones.
  return files(INFRA, ".bicep").filter((file) => !GRAPH_FILES.includes(file));
}

/**
 * `bicep <command>` on every .bicep file of the staged copy (`--pattern`) in one process: each run
 * starts a .NET process. Any output at all is a finding: build reports the linter's warnings too.
 */
function runAll(bicep, command, extra) {
  const result = spawnSync(bicep, [command, "--pattern", "**/*.bicep", ...extra], {
    cwd: STAGE,
    encoding: "utf8",
    env: BICEP_ENV,
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ?? ""}`.trim();
  if (result.status !== 0 || output)
    throw new Error(`bicep ${command}:\n${output || `exit ${result.status}`}`);
}

function build(bicep, sources) {
  fs.rmSync(OUT, { recursive: true, force: true });
  runAll(bicep, "build", ["--outdir", OUT]);
  // The stand-in's JSON is no compiled form of the real registration: not kept.
  fs.rmSync(path.join(OUT, STAND_IN.replace(/\.bicep$/, ".json")), { force: true });
  const missing = sources.filter((file) => !fs.existsSync(path.join(OUT, file.replace(/\.bicep$/, ".json"))));
  if (missing.length > 0) throw new Error(`bicep build: no JSON for ${missing.join(", ")}`);
  fs.writeFileSync(
    path.join(OUT, "manifest.json"),
    `${JSON.stringify({ bicepVersion: BICEP_VERSION, compiled: sources, notCompiled: GRAPH_FILES, standIn: STAND_IN }, null, 2)}\n`,
  );
  log(`bicep build: ${sources.length} files -> ${path.relative(ROOT, OUT)}/`);
}

function lint(bicep, sources) {
  runAll(bicep, "lint", []);
  log(`bicep lint: ${sources.length} files (and the stand-in), no warnings (default rules)`);
}

function main() {
  const command = process.argv.slice(2).find((arg) => !arg.startsWith("--")) ?? "check";
  if (!["check", "install", "build", "lint"].includes(command)) {
    console.error("usage: node infra/scripts/bicep-cli.js [check|install|build|lint] [--quiet]");
    return 2;
  }
  if (!hasDotnet()) {
    console.log("infra check skipped: no .NET SDK (dotnet) on PATH; the infra check runs in CI (.ci/run)");
    return 0;
  }
  const started = Date.now();
  const bicep = install();
  log(`bicep: ${path.relative(ROOT, bicep)} (${BICEP_VERSION})`);
  if (command === "install") return 0;
  const sources = stage();
  if (command === "check" || command === "build") build(bicep, sources);
  if (command === "check" || command === "lint") lint(bicep, sources);
  log(`infra check: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
