import { execFileSync } from "node:child_process";
import * as path from "node:path";

/**
 * Compiles the project as `npm run build:service` does, once per test run: tests that start the
 * built launcher or host as a process (as `npm start` runs them) need dist/ to match the sources.
 * The same incremental build: nothing is compiled when dist/ is up to date, files of deleted
 * sources are removed, and dist/ itself is never deleted (a local stack may be running from it).
 */
export function buildProject(): void {
  const root = path.join(__dirname, "..", "..");
  try {
    execFileSync(process.execPath, [path.join(root, "dev", "incremental-build.js"), "tsconfig.build.json"], {
      cwd: root,
      encoding: "utf8",
    });
  } catch (error) {
    throw new Error(`the build failed:\n${(error as { stdout?: string }).stdout ?? error}`);
  }
}
