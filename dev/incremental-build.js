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
/** How long a build runs before it says so, and how often after that. */
const PROGRESS_EVERY_MS = 5000;

/**
 * Removes compiled files whose source is gone. Only the folders the sources compile into are
 * looked at (dist/packages, say, is another build's), and only compiled files are removed.
 */
function removeStaleOutputs(tsconfig) {
  const ts = require("typescript");
  const parsed = ts.getParsedCommandLineOfConfigFile(path.resolve(tsconfig), {}, { ...ts.sys });
  const { rootDir, outDir } = parsed.options;
  if (!rootDir || !outDir) throw new Error(`${tsconfig} must set rootDir and outDir.`);
  const stems = new Set(
    parsed.fileNames.map((file) => path.relative(rootDir, file).replace(/\.(ts|js)$/, "")),
  );
  for (const top of new Set([...stems].map((stem) => stem.split(path.sep)[0]))) {
    const folder = path.join(outDir, top);
    if (!fs.existsSync(folder)) continue;
    for (const name of fs.readdirSync(folder, { recursive: true })) {
      const stem = path.join(top, name).replace(OUTPUT, "");
      if (OUTPUT.test(name) && !stems.has(stem)) fs.rmSync(path.join(folder, name), { force: true });
    }
  }
}

const tsconfig = process.argv[2];
// tsc -b, saying so when it takes a while (a first build: about 30 s), so a silent terminal is
// never mistaken for a hung one; an up-to-date build stays silent.
const start = Date.now();
const seconds = () => Math.round((Date.now() - start) / 1000);
const notice = setInterval(
  () => console.log(`Compiling ${tsconfig} with tsc ... ${seconds()} s`),
  PROGRESS_EVERY_MS,
);
const child = spawn(process.execPath, [require.resolve("typescript/bin/tsc"), "-b", tsconfig], {
  stdio: "inherit",
});
child.once("exit", (code) => {
  clearInterval(notice);
  if (code !== 0) {
    process.exitCode = 1;
    return;
  }
  removeStaleOutputs(tsconfig);
  if (Date.now() - start >= PROGRESS_EVERY_MS) console.log(`Compiled ${tsconfig} in ${seconds()} s`);
});
