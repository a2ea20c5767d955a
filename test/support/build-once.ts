import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import * as path from "node:path";

/**
 * Compiles the project as `npm run build` does, once per test run: tests that start the built
 * launcher or host as a process (as `npm start` runs them) need dist/ to match the sources.
 */
export function buildProject(): void {
  const root = path.join(__dirname, "..", "..");
  // A clean build, as `npm run build`: files of deleted sources must not linger in dist/.
  rmSync(path.join(root, "dist"), { recursive: true, force: true });
  try {
    execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
      cwd: root,
      encoding: "utf8",
    });
  } catch (error) {
    throw new Error(`the build failed:\n${(error as { stdout?: string }).stdout ?? error}`);
  }
}
