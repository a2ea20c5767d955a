import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * .funcignore keeps tests, sources and local-only code out of the deployment package and keeps the
 * compiled service, host.json, package.json and the dependencies in. Matched by git's own
 * gitignore implementation (the syntax azd reads .funcignore with), in an empty repository so that
 * only .funcignore applies: the project's .gitignore ignores dist/ and node_modules/.
 */
const ROOT = path.join(__dirname, "..", "..");
const FUNCIGNORE = path.join(ROOT, ".funcignore");

/** Which of `paths` (relative, '/'-separated; they need not exist) .funcignore excludes. */
function excluded(paths: string[]): Set<string> {
  const repository = mkdtempSync(path.join(os.tmpdir(), "funcignore-"));
  try {
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: os.devNull, HOME: repository };
    const init = spawnSync("git", ["init", "-q", repository], { env, encoding: "utf8" });
    if (init.status !== 0) throw new Error(`git init failed: ${init.stderr}`);
    const check = spawnSync(
      "git",
      ["-c", `core.excludesFile=${FUNCIGNORE}`, "check-ignore", "--no-index", "--stdin", "-z"],
      { cwd: repository, env, input: paths.join("\0"), encoding: "utf8" },
    );
    // 0: some paths are ignored, 1: none is; anything else is an error.
    if (check.status !== 0 && check.status !== 1) throw new Error(`git check-ignore failed: ${check.stderr}`);
    return new Set(check.stdout.split("\0").filter(Boolean));
  } finally {
    rmSync(repository, { recursive: true, force: true });
  }
}

const MUST_BE_EXCLUDED = [
  "test/unit/config.test.ts",
  "test/support/global-setup.ts",
  "dev/start.ts",
  "dev/stand-ins/service-bus/server.ts",
  "src/config.ts",
  "functions/http.ts",
  "dist/dev/start.js",
  "dist/bench/run.js",
  "dist/test/unit/config.test.js",
  "dist/functions/http.js.map",
  "infra/main.bicep",
  "infra/scripts/stage-package.js",
  "bench/run.ts",
  "tools/smoke.ts",
  "dist/tools/smoke.js",
  "coverage/lcov.info",
  "local.settings.json",
  "local.settings.sample.json",
  ".azure/dev/.env",
  ".local/azure-package/host.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "azure.yaml",
];

const MUST_BE_INCLUDED = [
  "host.json",
  "package.json",
  "package-lock.json",
  "dist/functions/http.js",
  "dist/functions/twin-events.js",
  "dist/functions/lib/services.js",
  "dist/src/config.js",
  "dist/src/store/containers.js",
  "node_modules/@azure/functions/package.json",
  // Dependencies with directories named like the project's excluded ones stay whole.
  "node_modules/debug/src/index.js",
  "node_modules/some-package/test/fixture.js",
  "node_modules/some-package/dist/dev/index.js",
];

/** Files and top-level directories the repository has (tracked, or new and not git-ignored). */
function repositoryTopLevel(): string[] {
  const listed = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const paths = listed.stdout.split("\0").filter(Boolean);
  // A directory is represented by a file inside it, so its directory patterns apply.
  return [...new Set(paths.map((file) => (file.includes("/") ? `${file.split("/")[0]}/any-file` : file)))];
}

describe(".funcignore", () => {
  it("leaves out tests, sources, local-only code and tooling", () => {
    const result = excluded(MUST_BE_EXCLUDED);
    expect(MUST_BE_EXCLUDED.filter((file) => !result.has(file))).toEqual([]);
  });

  it("keeps the compiled service, host.json, package.json and the dependencies", () => {
    const result = excluded(MUST_BE_INCLUDED);
    expect(MUST_BE_INCLUDED.filter((file) => result.has(file))).toEqual([]);
  });

  it("leaves out every top-level file and directory of the repository but the runtime ones", () => {
    const runtime = new Set(["host.json", "package.json", "package-lock.json"]);
    const topLevel = repositoryTopLevel().filter((entry) => !runtime.has(entry));
    expect(topLevel).toContain("src/any-file");
    const result = excluded(topLevel);
    expect(topLevel.filter((entry) => !result.has(entry))).toEqual([]);
  });

  it("leaves out the build output of everything but functions/ and src/", () => {
    const tsconfigBuild = JSON.parse(readFileSync(path.join(ROOT, "tsconfig.build.json"), "utf8")) as {
      include: string[];
    };
    const compiled = tsconfigBuild.include.map((directory) => `dist/${directory}/any-file.js`);
    const result = excluded(compiled);
    expect(compiled.filter((file) => result.has(file)).sort()).toEqual(
      compiled.filter((file) => !/^dist\/(functions|src)\//.test(file)).sort(),
    );
  });
});
