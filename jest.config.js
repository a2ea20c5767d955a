/**
 * Two projects. `unit`: the pure-logic tests of test/unit, which need nothing running, so
 * `npx jest test/unit` takes seconds. `stack`: everything else, behind a global setup that builds
 * dist/ and starts the shared stand-ins (test/support/global-setup.ts). Jest runs a project's
 * global setup only when some of its tests are selected.
 * @type {import('jest').Config}
 */
const common = {
  // Node's environment, plus what a worker still holds if Jest has to force it out.
  testEnvironment: "<rootDir>/test/support/worker-exit-environment.js",
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }],
    // jose 6 is ESM only, which Jest's CommonJS runtime cannot load (Node >= 20.19 can): compiled to
    // CommonJS for the tests, as nothing else of node_modules is.
    "/node_modules/jose/.+\\.js$": [
      "ts-jest",
      {
        tsconfig: { allowJs: true, module: "commonjs", target: "ES2022", sourceMap: false },
        diagnostics: false,
      },
    ],
  },
  transformIgnorePatterns: ["/node_modules/(?!jose/)"],
};

module.exports = {
  testTimeout: 60000,
  maxWorkers: 2,
  // A worker keeps what each file loaded (the SDKs, ts-jest's output) and grew past 1 GB of heap
  // and 2 GB resident over a run; ending such a process took Jest's 500 ms grace, hence "a worker
  // process has failed to exit gracefully" with nothing left open (.local/jest-worker-exits.log.ends).
  // A worker over this much heap after a file is replaced by a fresh one.
  workerIdleMemoryLimit: "600MB",
  // A line per finished file, then the failures and the totals (test/support/summary-reporter.js).
  reporters: ["<rootDir>/test/support/summary-reporter.js"],
  projects: [
    { ...common, displayName: "unit", roots: ["<rootDir>/test/unit"] },
    {
      ...common,
      displayName: "stack",
      roots: ["<rootDir>/test"],
      testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/unit/"],
      globalSetup: "<rootDir>/test/support/global-setup.ts",
      globalTeardown: "<rootDir>/test/support/global-teardown.ts",
    },
  ],
};
