// Plain JavaScript on purpose: `npm start` runs this before anything is installed or compiled.
// It installs the locked dependencies when node_modules is missing or older than the lock file.
const { execSync } = require("node:child_process");
const { existsSync, statSync } = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const marker = path.join(root, "node_modules", ".package-lock.json");
const lock = path.join(root, "package-lock.json");

if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
  const why = existsSync(marker) ? "package-lock.json changed" : "first run";
  console.log(`Installing dependencies (${why}, about 2 minutes)…`);
  // npm's own progress (a spinner in a terminal, then "added N packages") shows on the inherited
  // streams; --progress asks for it even where a parent npm's settings would turn it off.
  execSync("npm ci --no-audit --no-fund --progress=true", { cwd: root, stdio: "inherit" });
}
