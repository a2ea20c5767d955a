// Jest's node environment, plus a record of what keeps a worker alive when Jest has to force it
// out: Jest prints "A worker process has failed to exit gracefully" when a worker still runs 500 ms
// after it was told to end, then sends it SIGTERM. This environment's module is loaded once per
// worker (outside the tests' sandbox, where the real `process` is), so one SIGTERM handler per worker
// can write the resources still active and the files the worker ran last to
// .local/jest-worker-exits.log; test/support/summary-reporter.js prints them. (Below: why that
// handler alone is not enough, and what else is noted.)
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

/** What the worker holds beyond its pipes to Jest, as `Timeout ×1, TCPSocketWrap ×2`. */
function held() {
  const extra = [...counts(process.getActiveResourcesInfo())]
    .map(([name, count]) => [name, count - (baseline.get(name) ?? 0)])
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${name} ×${count}`);
  return extra.join(", ") || "nothing beyond its pipes";
}

/** Appends to a log under .local/, which a fresh clone's first unit run has not made yet. */
function append(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, text);
}

function record(what) {
  append(LOG, `worker ${process.pid} ${what} after ${recentFiles.join(", ")}\n`);
}

/** When Jest's end reached this worker (see below). */
let endedAt;
let forced = false;
process.once("SIGTERM", () => {
  forced = true;
  try {
    // Without Jest's end first, this is Jest recycling a worker over workerIdleMemoryLimit: no leak.
    if (endedAt !== undefined) record(`force-exited holding ${held()}`);
  } finally {
    process.exit(143);
  }
});

// Long collections are noted in `.ends`, with the file (a worker's heap grew past a gigabyte
// over a run before workerIdleMemoryLimit, see jest.config.js).
const { PerformanceObserver } = require("node:perf_hooks");
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.duration < 250) continue;
    const heap = process.memoryUsage().heapUsed >> 20;
    append(
      `${LOG}.ends`,
      `worker ${process.pid} gc ${Math.round(entry.duration)} ms (heap now ${heap} MB) in ${recentFiles.at(-1)}\n`,
    );
  }
}).observe({ entryTypes: ["gc"] });

// Jest ends a worker by removing the worker's one 'message' listener and letting its event loop
// drain; 500 ms later it sends SIGTERM. A SIGTERM handler cannot run while the loop is blocked, or
// once the worker is past its loop and exiting, so the moment of that end is noted too: a worker
// still running 400 ms later, its loop free, says what it holds; one that exits later than that
// says how late, which is a worker busy or slow to exit rather than one holding something open.
// Each end is noted in `.ends` with the worker's memory then.
const removeListener = process.removeListener;
process.removeListener = function (event, listener) {
  const result = removeListener.call(this, event, listener);
  if (event === "message" && endedAt === undefined && process.listenerCount("message") === 0) {
    endedAt = Date.now();
    const { rss, heapUsed } = process.memoryUsage();
    append(
      `${LOG}.ends`,
      `worker ${process.pid} got Jest's end at ${new Date(endedAt).toISOString()}, rss ${Math.round(rss / 2 ** 20)} MB, heap ${Math.round(heapUsed / 2 ** 20)} MB, holding ${held()}\n`,
    );
    setTimeout(() => record(`still running 400 ms after Jest's end, holding ${held()}`), 400).unref();
  }
  return result;
};
process.once("exit", () => {
  const late = endedAt === undefined ? 0 : Date.now() - endedAt;
  if (late > 400 && !forced) record(`exited ${late} ms after Jest's end (busy or slow to exit)`);
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
