// One line per finished test file, as it finishes ("[12/166] PASS test/x.test.ts: 9 tests, 3.1 s"),
// so a long run shows its progress, and under a FAIL line what failed, at once (a long run's
// failure is readable while the rest still runs); then Jest's own summary (the failures, then the totals), closed
// by one plain line, "tests: N passed, N failed", that any CI log reader understands. It replaces
// Jest's "summary" reporter (which Jest would always print last) so that the plain line stays the
// closing one.
const { existsSync, readFileSync, rmSync } = require("node:fs");
const path = require("node:path");
const { SummaryReporter: JestSummaryReporter } = require("@jest/reporters");
const { WORKER_EXITS_LOG } = require("./worker-exit-environment");

/** What failed in one file: each failing test's name and first lines of its message, or the file's error. */
function failureText(result) {
  const cut = (text) => text.split("\n").slice(0, 30).join("\n");
  if (result.testExecError) return cut(`  ${result.testExecError.message}`);
  return result.testResults
    .filter((test) => test.status === "failed")
    .map((test) => `  ✕ ${test.fullName}\n${cut(test.failureMessages.join("\n"))}`)
    .join("\n");
}

class SummaryReporter extends JestSummaryReporter {
  constructor(globalConfig, options) {
    // Every failure, however few suites ran (Jest's default lists them from 20 suites on).
    super(globalConfig, { summaryThreshold: 0, ...options });
  }

  onRunStart(results, options) {
    super.onRunStart(results, options);
    rmSync(WORKER_EXITS_LOG, { force: true });
    this.totalFiles = results.numTotalTestSuites;
    this.finishedFiles = 0;
  }

  onTestResult(test, result, aggregated) {
    super.onTestResult?.(test, result, aggregated);
    this.finishedFiles += 1;
    const verdict = result.numFailingTests > 0 || result.testExecError ? "FAIL" : "PASS";
    const tests = result.numPassingTests + result.numFailingTests;
    const seconds = ((result.perfStats.end - result.perfStats.start) / 1000).toFixed(1);
    const file = path.relative(test.context.config.rootDir, test.path).split(path.sep).join("/");
    process.stdout.write(
      `[${this.finishedFiles}/${this.totalFiles}] ${verdict} ${file}: ${tests} tests, ${seconds} s\n`,
    );
    if (verdict === "FAIL") process.stdout.write(`${failureText(result)}\n`);
  }

  async onRunComplete(contexts, results) {
    await super.onRunComplete(contexts, results);
    // What kept a worker alive, when Jest had to force one out (test/support/worker-exit-environment.js).
    if (existsSync(WORKER_EXITS_LOG)) process.stdout.write(`\n${readFileSync(WORKER_EXITS_LOG, "utf8")}`);
    const skipped = results.numPendingTests + results.numTodoTests;
    const tail = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(
      `\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${tail}\n`,
    );
  }
}
module.exports = SummaryReporter;
