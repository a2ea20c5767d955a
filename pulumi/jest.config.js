/**
 * The Pulumi package's tests: `npm test` in pulumi/, after the root's `npm ci` and this folder's.
 * They run with the repository's toolchain (Jest, ts-jest and TypeScript of the root install,
 * which npm puts on PATH and Node finds above this folder) and against its local stack: the root's
 * global setup builds dist/ and starts the shared stand-ins, as for the root's `stack` tests.
 * @pulumi/pulumi and the package's other dependencies come from pulumi/node_modules.
 * @type {import('jest').Config}
 */
const path = require("node:path");

const ROOT = path.join(__dirname, "..");

module.exports = {
  displayName: "pulumi",
  rootDir: __dirname,
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/"],
  testTimeout: 60000,
  maxWorkers: 2,
  // As the root's (jest.config.js): a worker over this much heap after a file is replaced.
  workerIdleMemoryLimit: "600MB",
  testEnvironment: path.join(ROOT, "test", "support", "worker-exit-environment.js"),
  reporters: [path.join(ROOT, "test", "support", "summary-reporter.js")],
  globalSetup: path.join(ROOT, "test", "support", "global-setup.ts"),
  globalTeardown: path.join(ROOT, "test", "support", "global-teardown.ts"),
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: path.join(__dirname, "tsconfig.test.json") }],
    // jose 6 is ESM only (the root's tests and stand-ins use it): compiled to CommonJS as the root's
    // jest.config.js does.
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
