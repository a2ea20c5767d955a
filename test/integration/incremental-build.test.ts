import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { removeTempDirs, tempDir } from "../support/temp-dirs";

// dev/incremental-build.js, as `npm run build:service` runs it: compiles only what changed, never
// empties the output folder (a running local stack executes it), and removes what a deleted
// source compiled to, and nothing else.

const SCRIPT = path.join(__dirname, "..", "..", "dev", "incremental-build.js");

let project: string;

function build(): void {
  execFileSync(process.execPath, [SCRIPT, "tsconfig.json"], { cwd: project, encoding: "utf8" });
}

function write(relative: string, text: string): void {
  mkdirSync(path.dirname(path.join(project, relative)), { recursive: true });
  writeFileSync(path.join(project, relative), text);
}

beforeEach(() => {
  project = tempDir("incremental-build-");
  write(
    "tsconfig.json",
    JSON.stringify({
      compilerOptions: {
        rootDir: ".",
        outDir: "out",
        declaration: true,
        sourceMap: true,
        types: [],
        strict: true,
      },
      include: ["lib", "app"],
    }),
  );
  write("lib/kept.ts", "export const kept = 1;\n");
  write("lib/doomed.ts", "export const doomed = 2;\n");
  write("app/main.ts", 'import { kept } from "../lib/kept";\nconsole.log(kept);\n');
});

afterAll(removeTempDirs);

it("compiles nothing when up to date, and a changed source in place, never deleting the rest of the output", () => {
  build();
  const main = path.join(project, "out", "app", "main.js");
  const before = statSync(main).mtimeMs;
  build();
  expect(statSync(main).mtimeMs).toBe(before);
  write("lib/doomed.ts", "export const doomed = 3;\n");
  build();
  expect(readFileSync(path.join(project, "out", "lib", "doomed.js"), "utf8")).toContain("doomed = 3");
  // Rewritten in place, never missing: a process loading it meanwhile finds it.
  expect(existsSync(main)).toBe(true);
});

it("removes every compiled file of a deleted source, and only those; fails when the sources do not compile", () => {
  build();
  // Another build's output beside this one's, and a file no source compiles to in a compiled folder.
  write("out/packages/client/index.js", "module.exports = {};\n");
  write("out/lib/data.json", "{}\n");
  rmSync(path.join(project, "lib", "doomed.ts"));
  build();
  for (const suffix of [".js", ".d.ts", ".js.map"]) {
    expect(existsSync(path.join(project, "out", "lib", `doomed${suffix}`))).toBe(false);
    expect(existsSync(path.join(project, "out", "lib", `kept${suffix}`))).toBe(true);
  }
  expect(existsSync(path.join(project, "out", "packages", "client", "index.js"))).toBe(true);
  expect(existsSync(path.join(project, "out", "lib", "data.json"))).toBe(true);
  write("lib/kept.ts", "export const kept: number = 'not a number';\n");
  expect(build).toThrow();
  expect(existsSync(path.join(project, "out", "app", "main.js"))).toBe(true);
});
