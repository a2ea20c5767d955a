// Jest's own summary (the failures, then the totals), closed by one plain line, "tests: N passed,
// N failed", that any CI log reader understands. It replaces Jest's "summary" reporter (which Jest
// would always print last) so that the plain line stays the closing one.
const { SummaryReporter: JestSummaryReporter } = require("@jest/reporters");

class SummaryReporter extends JestSummaryReporter {
  constructor(globalConfig, options) {
    // Every failure, however few suites ran (Jest's default lists them from 20 suites on).
    super(globalConfig, { summaryThreshold: 0, ...options });
  }

  async onRunComplete(contexts, results) {
    await super.onRunComplete(contexts, results);
    const skipped = results.numPendingTests + results.numTodoTests;
    const tail = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(
      `\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${tail}\n`,
    );
  }
}
module.exports = SummaryReporter;
