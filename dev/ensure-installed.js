// Plain JavaScript on purpose: `npm start` runs this before anything is installed or compiled.
// It installs the locked dependencies when node_modules is missing or older than the lock file.
const { spawn } = require("node:child_process");
const { existsSync, statSync } = require("node:fs");
const path = require("node:path");

const root = path.join(__dirname, "..");
const marker = path.join(root, "node_modules", ".package-lock.json");
const lock = path.join(root, "package-lock.json");
/** How often a line says the install is still going. */
const HEARTBEAT_MS = Number(process.env.INSTALL_HEARTBEAT_MS) || 15_000;

if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
  const why = existsSync(marker) ? "package-lock.json changed" : "first run";
  console.log(`Installing dependencies (${why}, about 2 minutes)…`);
  const started = Date.now();
  // npm's own progress (a spinner, in a terminal only) shows on the inherited streams; outside a
  // terminal, or where a parent npm turns it off, npm prints nothing until it is done, so a line
  // now and then says the install is alive.
  const heartbeat = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`Still installing dependencies (${seconds} s so far)…`);
  }, HEARTBEAT_MS);
  // The npm that runs `npm start`, else the one on PATH.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
  const child = spawn(npm[0], [...npm.slice(1), "ci", "--no-audit", "--no-fund", "--progress=true"], {
    cwd: root,
    stdio: "inherit",
  });
  child.on("error", (error) => {
    clearInterval(heartbeat);
    console.error(`Could not run npm: ${error.message}`);
    process.exitCode = 1;
  });
  child.on("exit", (code, signal) => {
    clearInterval(heartbeat);
    if (code === 0) console.log(`Dependencies installed in ${Math.round((Date.now() - started) / 1000)} s.`);
    else console.error(`npm ci failed (${signal ?? `exit code ${code}`}); see its output above.`);
    process.exitCode = code === 0 ? 0 : 1;
  });
}
