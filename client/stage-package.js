// Builds the typed client as a package of its own, @twin-resource-service/client, in
// dist/packages/client: `npm pack ./dist/packages/client` makes a tarball another project installs.
// Plain JavaScript: part of `npm run build`. The client's own imports (it takes its paths and
// api-versions from src/common/, which import nothing) are compiled along with it.
//
// Why not a package.json in client/: the tests and the Pulumi package import the client's sources
// by folder ("../../client"), and a package.json there would send those imports to its `main`.
//
// Usage: node client/stage-package.js [output folder]   (default dist/packages/client)

const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const { builtinModules } = require("node:module");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const output = path.resolve(process.argv[2] ?? path.join(root, "dist", "packages", "client"));

const rootManifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const { version, license } = rootManifest;

/** Every file under a folder. */
function filesUnder(folder) {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(path.join(folder, entry.name)) : [path.join(folder, entry.name)],
    );
}

/**
 * The packages the compiled client requires, at the versions the root package depends on: the
 * package then installs what it needs, and nothing else.
 */
function dependenciesOf(folder) {
  const names = new Set();
  for (const file of filesUnder(folder).filter((name) => name.endsWith(".js"))) {
    for (const [, specifier] of fs.readFileSync(file, "utf8").matchAll(/require\("([^".][^"]*)"\)/g)) {
      const name = specifier.startsWith("@")
        ? specifier.split("/").slice(0, 2).join("/")
        : specifier.split("/")[0];
      if (!name.startsWith("node:") && !builtinModules.includes(name)) names.add(name);
    }
  }
  const dependencies = {};
  for (const name of [...names].sort()) {
    const range = rootManifest.dependencies?.[name];
    if (range === undefined) {
      throw new Error(`The client requires ${name}, which is not a dependency of the root package.json.`);
    }
    dependencies[name] = range;
  }
  return dependencies;
}

/**
 * An ES module entry beside the CommonJS one: `import` in an ES module project gets named exports
 * it can rely on, and the same objects as `require` (it re-exports the CommonJS module, so there
 * is one ServiceError class, and `instanceof` holds, whichever way the package was loaded).
 */
function writeEsmEntry(folder) {
  // The names tsc's CommonJS output exports (read, not loaded: its dependencies may not resolve
  // from the output folder); test/docs/client-setup.test.ts checks they are all of them.
  const compiled = fs.readFileSync(path.join(folder, "index.js"), "utf8");
  const found = [
    ...compiled.matchAll(/Object\.defineProperty\(exports, "([A-Za-z_$][\w$]*)"/g),
    ...compiled.matchAll(/\bexports\.([A-Za-z_$][\w$]*) =/g),
  ].map((match) => match[1]);
  const names = [...new Set(found)].filter((name) => name !== "__esModule");
  const esm = [
    "// The ES module entry: the CommonJS module's exports, by name (one copy of each, not two).",
    'import client from "./index.js";',
    `export const { ${names.join(", ")} } = client;`,
    "",
  ].join("\n");
  writeIfChanged(path.join(folder, "index.mjs"), esm);
  writeIfChanged(path.join(folder, "index.d.mts"), 'export * from "./index.js";\n');
}

/** Writes only what changed, so an unchanged package keeps its files' times. */
function writeIfChanged(file, text) {
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === text) return;
  fs.writeFileSync(file, text);
}

const manifest = {
  name: "@twin-resource-service/client",
  version,
  private: true,
  description:
    "Typed client for the twin resource service: authentication profiles, queue endpoints, event routes, twin events, cluster assessments",
  license,
  main: "dist/client/index.js",
  types: "dist/client/index.d.ts",
  exports: {
    ".": {
      import: { types: "./dist/client/index.d.mts", default: "./dist/client/index.mjs" },
      require: { types: "./dist/client/index.d.ts", default: "./dist/client/index.js" },
    },
    "./package.json": "./package.json",
  },
  // The command line, `twin` (client/cli/main.ts): `npx twin --help` where the package is installed.
  bin: { twin: "dist/client/cli/main.js" },
  // The build's bookkeeping (.tsbuildinfo) stays out of the tarball.
  files: ["dist", "!dist/*.tsbuildinfo"],
  engines: { node: ">=20" },
};

// Compiled in place and only when a source changed (dev/incremental-build.js): a tsconfig in the
// output folder puts the client's project there. Type packages are looked up from a tsconfig's own
// folder, so they are named here: the output may be anywhere (the tests stage in the temp folder).
fs.mkdirSync(output, { recursive: true });
const stageConfig = path.join(output, "tsconfig.stage.json");
const stageOptions = {
  outDir: path.join(output, "dist"),
  tsBuildInfoFile: path.join(output, "dist", "client.tsbuildinfo"),
  typeRoots: [path.join(root, "node_modules", "@types")],
};
writeIfChanged(
  stageConfig,
  `${JSON.stringify({ extends: path.join(__dirname, "tsconfig.json"), compilerOptions: stageOptions }, null, 2)}\n`,
);
execFileSync(process.execPath, [path.join(root, "dev", "incremental-build.js"), stageConfig], {
  stdio: "inherit",
  cwd: root,
});
writeEsmEntry(path.join(output, "dist", "client"));
fs.chmodSync(path.join(output, manifest.bin.twin), 0o755);
manifest.dependencies = dependenciesOf(path.join(output, "dist"));
writeIfChanged(path.join(output, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
writeIfChanged(path.join(output, "README.md"), fs.readFileSync(path.join(__dirname, "README.md"), "utf8"));
console.log(`Built ${manifest.name} ${version} in ${path.relative(process.cwd(), output) || "."}`);
