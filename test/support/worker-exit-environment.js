// Jest's node environment, plus a record of what keeps a worker alive when Jest has to force it
// out: Jest prints "A worker process has failed to exit gracefully" when a worker still runs 500 ms
// after it was told to end, then sends it SIGTERM. This environment's module is loaded once per
// worker (outside the tests' sandbox, where the real `process` is), so one SIGTERM handler per worker
// can write the resources still active and the files the worker ran last to
// .local/jest-worker-exits.log; test/support/summary-reporter.js prints them.
const { appendFileSync, mkdirSync } = require("node:fs");
const path = require("node:path");
const { TestEnvironment } = require("jest-environment-node");

const LOG = path.join(__dirname, "..", "..", ".local", "jest-worker-exits.log");
const recentFiles = [];

function counts(names) {
  const byName = new Map();
  for (const name of names) byName.set(name, (byName.get(name) ?? 0) + 1);
  return byName;
}
/** What a worker holds before any test runs (its pipes to Jest), left out of what is reported. */
const baseline = counts(process.getActiveResourcesInfo());

process.once("SIGTERM", () => {
  const held = [...counts(process.getActiveResourcesInfo())]
    .map(([name, count]) => [name, count - (baseline.get(name) ?? 0)])
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${name} ×${count}`);
  const line = `worker ${process.pid} force-exited holding ${held.join(", ") || "nothing beyond its pipes"} after ${recentFiles.join(", ")}\n`;
  try {
    mkdirSync(path.dirname(LOG), { recursive: true });
    appendFileSync(LOG, line);
  } finally {
    process.exit(143);
  }
});

class WorkerExitEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    recentFiles.push(path.relative(config.projectConfig.rootDir, context.testPath));
    if (recentFiles.length > 5) recentFiles.shift();
  }
}

module.exports = WorkerExitEnvironment;
module.exports.WORKER_EXITS_LOG = LOG;
