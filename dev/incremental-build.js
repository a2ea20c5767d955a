// Plain JavaScript: `npm start`, `npm run seed` and `npm run packages` run it before anything is
// compiled. Compiles a TypeScript project in place, only when a source changed (`tsc -b` keeps a
// .tsbuildinfo beside the output and checks it against the sources: well under a second when all
// is up to date), and never deletes the output folder: a running local stack executes dist/dev
// and dist/src, so emptying dist/ under it (as a clean build did) breaks it. What a deleted source
// left behind is removed file by file instead, so no file of a deleted module lingers and runs.
//
// Usage: node dev/incremental-build.js <tsconfig.json>
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const OUTPUT = /\.(js|d\.ts|js\.map|d\.ts\.map)$/;

/** Every file under a folder, or none when it does not exist. */
function filesUnder(folder) {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(path.join(folder, entry.name)) : [path.join(folder, entry.name)],
    );
}

/** The project's sources, rootDir and outDir, as tsc reads them. */
function readProject(tsconfig) {
  const ts = require("typescript");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.resolve(tsconfig),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  const { rootDir, outDir } = parsed.options;
  if (!rootDir || !outDir) throw new Error(`${tsconfig} must set rootDir and outDir.`);
  return { sources: parsed.fileNames.map((file) => path.resolve(file)), rootDir, outDir };
}

/**
 * Removes compiled files whose source is gone. Only the folders the sources compile into are
 * looked at (dist/packages, say, is another build's), and only compiled files are removed.
 */
function removeStaleOutputs({ sources, rootDir, outDir }) {
  const stems = new Set(sources.map((file) => path.relative(rootDir, file).replace(/\.(ts|js)$/, "")));
  const tops = new Set([...stems].map((stem) => stem.split(path.sep)[0]));
  const removed = [];
  for (const top of tops) {
    for (const file of filesUnder(path.join(outDir, top)).filter((name) => OUTPUT.test(name))) {
      const stem = path.relative(outDir, file).replace(OUTPUT, "");
      if (!stems.has(stem)) {
        fs.rmSync(file, { force: true });
        removed.push(path.relative(outDir, file));
      }
    }
  }
  return removed;
}

/**
 * tsc -b, saying so when it takes a while (a first build: about 30 s), so a silent terminal is
 * never mistaken for a hung one; an up-to-date build stays silent.
 */
function build(tsconfig) {
  const tsc = require.resolve("typescript/bin/tsc");
  const start = Date.now();
  const seconds = () => Math.round((Date.now() - start) / 1000);
  const notice = setTimeout(function progress() {
    console.log(`Compiling ${tsconfig} with tsc ... ${seconds()} s`);
    notice.refresh();
  }, PROGRESS_EVERY_MS);
  const child = spawn(process.execPath, [tsc, "-b", tsconfig], { stdio: "inherit" });
  child.once("exit", (code) => {
    clearTimeout(notice);
    if (code !== 0) {
      process.exitCode = 1;
      return;
    }
    removeStaleOutputs(readProject(tsconfig));
    if (Date.now() - start >= PROGRESS_EVERY_MS) console.log(`Compiled ${tsconfig} in ${seconds()} s`);
  });
}

/** How long a build runs before it says so, and how often after that. */
const PROGRESS_EVERY_MS = 5000;

module.exports = { removeStaleOutputs, readProject };

if (require.main === module) {
  const tsconfig = process.argv[2];
  if (!tsconfig) {
    console.error("Usage: node dev/incremental-build.js <tsconfig.json>");
    process.exit(2);
  }
  build(tsconfig);
}
