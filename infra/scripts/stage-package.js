// Stages the Function App's deployment package in .local/azure-package: what the Functions host loads
// (host.json, package.json, dist/functions, dist/src) and the production dependencies only.
//
// Why: for a TypeScript function app azd runs `npm install` (dev dependencies included) and
// `npm run build`, then zips the service folder with .funcignore applied; it never prunes dev
// dependencies, so zipping the repository root would ship jest, azurite, typescript and the rest.
// azure.yaml runs this as the api service's prepackage hook and points `dist` at this folder, so
// azd zips it instead. The folder is outside dist/ because `npm run build` empties dist/ and azd
// runs the build again after the hook; .local/ is git- and lint-ignored like dist/.
//
// Usage: node infra/scripts/stage-package.js   (from anywhere; needs npm and the npm registry)

const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..", "..");
const stage = path.join(root, ".local", "azure-package");

/** What the package holds besides node_modules, relative to the root. Keep in step with .funcignore. */
const FILES = ["host.json", "package.json", "package-lock.json"];
const DIRECTORIES = ["dist/functions", "dist/src"];

function npm(args, cwd) {
  // npm is npm.cmd on Windows, which Node only spawns through a shell.
  execFileSync("npm", args, { cwd, stdio: "inherit", shell: process.platform === "win32" });
}

function main() {
  if (!fs.existsSync(path.join(root, "node_modules", "typescript"))) {
    npm(["ci", "--no-audit", "--no-fund"], root);
  }
  npm(["run", "build"], root);

  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const file of FILES) {
    fs.copyFileSync(path.join(root, file), path.join(stage, file));
  }
  for (const directory of DIRECTORIES) {
    fs.cpSync(path.join(root, directory), path.join(stage, directory), {
      recursive: true,
      // Source maps point at TypeScript sources that are not deployed.
      filter: (source) => !source.endsWith(".map"),
    });
  }

  // The lock file pins the same versions the tests ran with; --omit=dev leaves the build and test
  // tools out. Every production dependency is plain JavaScript, so the platform npm runs on does
  // not matter for the Linux host.
  npm(["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"], stage);

  const packageJson = JSON.parse(fs.readFileSync(path.join(stage, "package.json"), "utf8"));
  const missing = Object.keys(packageJson.dependencies ?? {}).filter(
    (name) => !fs.existsSync(path.join(stage, "node_modules", name, "package.json")),
  );
  const entryPoints = fs.readdirSync(path.join(stage, "dist", "functions")).filter((f) => f.endsWith(".js"));
  if (missing.length > 0 || entryPoints.length === 0) {
    throw new Error(
      `staged package is incomplete: missing dependencies [${missing.join(", ")}], ` +
        `${entryPoints.length} entry points in dist/functions`,
    );
  }
  console.log(
    `Staged ${path.relative(root, stage)}: entry points ${entryPoints.join(", ")}; production dependencies only.`,
  );
}

main();
