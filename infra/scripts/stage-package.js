// Stages the Function App's deployment package in .local/azure-package (or the folder given with
// --out), as bundles:
//
//   host.json, package.json   package.json's main names index.js; no dependencies to install
//   index.js                  the entry points (functions/*.ts) and all of our code, with the two
//                             packages they load at start (@azure/functions, zod)
//   node_modules/<name>/      one bundle per other production dependency the code reaches, loaded
//                             by name on its first use (src/services.ts), so a cold start parses none
//   THIRD-PARTY-NOTICES.txt   the licence of every package bundled
//
// Why: npm's production install was 351 MB in 54,000 files (69 MB zipped), which every new instance
// downloads and mounts, and a require of our entry points then resolved 80 modules. Bundled, the
// package is a few MB and the start reads one file (docs/performance.md, "The deployment package").
// The Functions worker provides `@azure/functions-core` itself, so it stays a require.
//
// For a TypeScript function app azd runs `npm install` and `npm run build`, then zips the folder
// `dist` names in azure.yaml: this script is its prepackage hook, and that folder is this one.
// .local/ is git- and lint-ignored.
//
// Usage: node infra/scripts/stage-package.js [--out <folder>] [--quiet]

const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const root = path.resolve(__dirname, "..", "..");
/** Loaded when the worker loads the entry points, so part of index.js. */
const AT_START = new Set(["@azure/functions", "zod"]);
/**
 * Bundled apart although the code never requires them itself: the Cosmos DB SDK requires the Key
 * Vault keys SDK as it loads, for a feature the service does not use, and src/store/cosmos-client.ts
 * has Node load it on first read instead, which needs it to be a module of its own.
 */
const APART = ["@azure/keyvault-keys"];
/** Provided by the Functions worker at run time; not a package. */
const WORKER_PROVIDED = ["@azure/functions-core"];

function parseArguments(argv) {
  const outIndex = argv.indexOf("--out");
  return {
    stage: outIndex >= 0 ? path.resolve(argv[outIndex + 1]) : path.join(root, ".local", "azure-package"),
    quiet: argv.includes("--quiet"),
  };
}

function ensureInstalled() {
  if (fs.existsSync(path.join(root, "node_modules", "esbuild"))) return;
  // npm is npm.cmd on Windows, which Node only spawns through a shell.
  execFileSync("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: root,
    stdio: "inherit",
    shell: process.platform === "win32",
  });
}

/** The package an input file of esbuild's metafile belongs to (`node_modules/<name>/...`), if any. */
function packageOf(input) {
  const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.replaceAll("\\", "/"));
  return match ? { name: match[1], directory: input.slice(0, match.index + match[0].length) } : undefined;
}

/** Same as esbuild's: minified whitespace and syntax, names kept so stack traces stay readable. */
const COMMON = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: "error",
  absWorkingDir: root,
};

/**
 * zod's entries import its locales index, which imports every language's messages (2.5 MB); the
 * service speaks English, which zod's classic API imports itself. In the bundle the index holds
 * English only, so src/common/zod-locales-on-demand.ts (the same saving for unbundled runs, through
 * require.resolve, which a bundle has nothing to resolve with) has nothing left to do.
 */
const englishOnlyZod = {
  name: "english-only-zod",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: path.dirname(args.path),
    }));
    build.onLoad({ filter: /[\\/]src[\\/]common[\\/]zod-locales-on-demand\.ts$/ }, () => ({
      contents: "export function installZodLocalesOnDemand() {}",
      loader: "ts",
    }));
  },
};

/**
 * Leaves a require of another bundled dependency as a require of it, so one copy of each exists
 * (the OpenTelemetry API's global meter provider, the credential classes), but only when it
 * resolves to the same file as from the root: a nested, other version is bundled in.
 */
function sharedDependencies(names) {
  return {
    name: "shared-dependencies",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = args.path.startsWith("@") ? args.path.split("/", 2).join("/") : args.path.split("/")[0];
        if (!names.has(name) || args.path !== name) return undefined;
        try {
          const here = require.resolve(name, { paths: [args.resolveDir] });
          const top = require.resolve(name, { paths: [root] });
          return here === top ? { path: name, external: true } : undefined;
        } catch {
          return undefined;
        }
      });
    },
  };
}

/** The dependencies a build left as requires (external), of those `names` holds. */
function externalsOf(metafile, names) {
  const found = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (imported.external && names.has(imported.path)) found.add(imported.path);
    }
  }
  return found;
}

async function stagePackage({ stage, quiet }) {
  const say = quiet ? () => {} : (line) => console.log(line);
  ensureInstalled();
  const esbuild = require(path.join(root, "node_modules", "esbuild"));
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const onFirstUse = new Set([
    ...Object.keys(manifest.dependencies).filter((name) => !AT_START.has(name)),
    ...APART,
  ]);

  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  const entryPoints = fs
    .readdirSync(path.join(root, "functions"))
    .filter((file) => file.endsWith(".ts"))
    .sort();
  say(`Bundling ${entryPoints.map((file) => `functions/${file}`).join(", ")} into index.js ...`);
  const main = await esbuild.build({
    ...COMMON,
    stdin: {
      contents: entryPoints.map((file) => `import "./functions/${file.replace(/\.ts$/, "")}";`).join("\n"),
      resolveDir: root,
      sourcefile: "functions.ts",
      loader: "ts",
    },
    outfile: path.join(stage, "index.js"),
    external: [...WORKER_PROVIDED, ...onFirstUse],
    plugins: [englishOnlyZod],
  });
  const inputs = Object.keys(main.metafile.inputs);

  // Every dependency the code reaches, then every one those reach, each bundled once.
  const pending = [...externalsOf(main.metafile, onFirstUse)];
  const bundled = new Set();
  while (pending.length > 0) {
    const name = pending.shift();
    if (bundled.has(name)) continue;
    bundled.add(name);
    say(`Bundling ${name} into node_modules/${name}/index.js ...`);
    const directory = path.join(stage, "node_modules", ...name.split("/"));
    const result = await esbuild.build({
      ...COMMON,
      stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root },
      outfile: path.join(directory, "index.js"),
      plugins: [sharedDependencies(new Set([...onFirstUse].filter((other) => other !== name)))],
    });
    const { version } = JSON.parse(
      fs.readFileSync(path.join(root, "node_modules", ...name.split("/"), "package.json"), "utf8"),
    );
    fs.writeFileSync(
      path.join(directory, "package.json"),
      `${JSON.stringify({ name, version, main: "index.js" })}\n`,
    );
    inputs.push(...Object.keys(result.metafile.inputs));
    pending.push(...externalsOf(result.metafile, onFirstUse));
  }

  fs.copyFileSync(path.join(root, "host.json"), path.join(stage, "host.json"));
  const { name, version, description, license, engines } = manifest;
  const stagedManifest = { name, version, description, license, private: true, main: "index.js", engines };
  fs.writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(stagedManifest, null, 2)}\n`);
  const notices = writeNotices(stage, inputs);
  say(
    `Staged ${path.relative(process.cwd(), stage) || "."}: index.js and ${bundled.size} dependencies loaded on ` +
      `first use (${[...bundled].sort().join(", ")}); the licences of ${notices} packages in THIRD-PARTY-NOTICES.txt.`,
  );
  return { stage, bundled: [...bundled].sort(), metafile: main.metafile };
}

/** THIRD-PARTY-NOTICES.txt: each bundled package's name, version and licence text; how many. */
function writeNotices(stage, inputs) {
  const packages = new Map();
  for (const input of inputs) {
    const found = packageOf(input);
    if (!found || packages.has(found.directory)) continue;
    const directory = path.resolve(root, found.directory);
    const manifest = JSON.parse(fs.readFileSync(path.join(directory, "package.json"), "utf8"));
    const licenceFile = fs.readdirSync(directory).find((file) => /^(licen[cs]e|copying)/i.test(file));
    const text = licenceFile
      ? fs.readFileSync(path.join(directory, licenceFile), "utf8").trim()
      : `License: ${manifest.license ?? "see the package"}`;
    packages.set(found.directory, `${manifest.name}@${manifest.version}\n\n${text}`);
  }
  const sorted = [...new Set(packages.values())].sort();
  fs.writeFileSync(
    path.join(stage, "THIRD-PARTY-NOTICES.txt"),
    `This package bundles the following packages, under the licences that follow each.\n\n${sorted.join(
      `\n\n${"-".repeat(72)}\n\n`,
    )}\n`,
  );
  return sorted.length;
}

module.exports = { stagePackage };

if (require.main === module) {
  stagePackage(parseArguments(process.argv.slice(2))).catch((error) => {
    console.error(`Staging the deployment package failed: ${error.message}`);
    process.exitCode = 1;
  });
}
