import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// dev/ensure-installed.js, the first thing `npm start` runs: an install of minutes must not be
// silent, and a failed one must stop `npm start`. Run from a copy beside an empty project, with a
// stand-in for npm (npm_execpath, as npm sets it for scripts) that takes a while.

afterAll(removeTempDirs);

function runWithFakeNpm(exitCode: number): { status: number | null; stdout: string; stderr: string } {
  const project = tempDir("ensure-installed-");
  mkdirSync(path.join(project, "dev"));
  copyFileSync(
    path.join(__dirname, "..", "..", "dev", "ensure-installed.js"),
    path.join(project, "dev", "ensure-installed.js"),
  );
  writeFileSync(path.join(project, "package-lock.json"), "{}\n");
  const fakeNpm = path.join(project, "fake-npm.js");
  writeFileSync(
    fakeNpm,
    `console.log("npm", process.argv.slice(2).join(" ")); setTimeout(() => process.exit(${exitCode}), 1200);\n`,
  );
  const result = spawnSync(process.execPath, [path.join(project, "dev", "ensure-installed.js")], {
    env: { ...process.env, npm_execpath: fakeNpm, INSTALL_HEARTBEAT_MS: "300" },
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

it("says the install is still going while npm is quiet, and when it is done; fails when npm fails", () => {
  const { status, stdout } = runWithFakeNpm(0);
  expect(status).toBe(0);
  expect(stdout).toMatch(/^Installing dependencies \(first run, about 2 minutes\)…\n/);
  expect(stdout).toContain("npm ci --no-audit --no-fund --progress=true");
  expect(stdout.match(/^Still installing dependencies \(\d+ s so far\)…$/gm)?.length).toBeGreaterThanOrEqual(
    2,
  );
  expect(stdout).toMatch(/Dependencies installed in \d+ s\.\n$/);
  // So npm start goes no further.
  const failed = runWithFakeNpm(3);
  expect(failed.status).toBe(1);
  expect(failed.stderr).toContain("npm ci failed (exit code 3)");
});
