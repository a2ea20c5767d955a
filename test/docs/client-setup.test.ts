import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { promisify } from "node:util";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { codeBlocks, ROOT, readPage } from "./doc-blocks";

// client/README.md's setup, done as written: a new project, `tsc --init` with TypeScript's own
// defaults and the README's flags, the packed client tarball installed, the README's index.ts
// compiled by tsc and run with node. Once as an ES module project, once as a CommonJS one.

const PAGE = "client/README.md";
const blocks = codeBlocks(PAGE, readPage(PAGE));
const TSC = require.resolve("typescript/bin/tsc");

/** The setup's commands: the block that runs `tsc --init`, then the CommonJS variant's block. */
const initBlocks = blocks.filter((block) => block.language === "sh" && /npx tsc --init/.test(block.code));
const esmSetup = initBlocks[0]?.code ?? "";
const commonJsSetup = initBlocks[1]?.code ?? "";
const indexTs =
  blocks.find((block) => block.language === "ts" && block.code.includes("client.health()"))?.code ?? "";

function initArguments(setup: string): string[] {
  const line = /^npx tsc --init(.*)$/m.exec(setup)?.[1] ?? "";
  return line.trim().split(/\s+/).filter(Boolean);
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

let tarball: string;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  const stage = tempDir("client-setup-stage-");
  run(process.execPath, [path.join(ROOT, "client", "stage-package.js"), path.join(stage, "client")], ROOT);
  const [packed] = JSON.parse(
    run("npm", ["pack", "--json", path.join(stage, "client"), "--pack-destination", stage], ROOT),
  ) as { filename: string }[];
  tarball = path.join(stage, packed?.filename ?? "");
  // The service's health route, as far as the example goes.
  server = http.createServer((request, response) => {
    const ok = request.url?.endsWith("/health");
    response.writeHead(ok ? 200 : 404, { "content-type": "application/json" });
    response.end(
      JSON.stringify(ok ? { status: "ok", checks: {} } : { error: { code: "NotFound", message: "no" } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  removeTempDirs();
});

/**
 * `npm install` of the tarball, offline: the package, and the dependencies it declares (only
 * those) and the dev dependencies the README names, linked from this repository's node_modules.
 */
function newProject(esModule: boolean): string {
  const project = tempDir("client-setup-");
  const manifest = { name: "my-app", version: "1.0.0", ...(esModule && { type: "module" }) };
  writeFileSync(path.join(project, "package.json"), JSON.stringify(manifest));
  const target = path.join(project, "node_modules", "@twin-resource-service", "client");
  mkdirSync(target, { recursive: true });
  run("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"], project);
  const declared = Object.keys(
    JSON.parse(readFileSync(path.join(target, "package.json"), "utf8")).dependencies,
  );
  for (const name of [...declared, "@types/node", "typescript"]) {
    const link = path.join(project, "node_modules", name);
    if (existsSync(link)) continue;
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules", name), link);
  }
  return project;
}

it("finds the setup in the README: tsc --init for each module system, and index.ts", () => {
  expect(esmSetup).toContain("npm pkg set type=module");
  expect(initArguments(esmSetup)).toEqual(["--types", "node"]);
  expect(commonJsSetup).not.toContain("type=module");
  expect(initArguments(commonJsSetup)).toEqual(["--types", "node", "--verbatimModuleSyntax", "false"]);
  expect(indexTs).toContain('from "@twin-resource-service/client"');
});

it.each([
  ["an ES module project", true],
  ["a CommonJS project", false],
])(
  "in %s, index.ts compiles with tsc --init's defaults and runs",
  async (_label, esModule) => {
    const project = newProject(esModule);
    run(process.execPath, [TSC, "--init", ...initArguments(esModule ? esmSetup : commonJsSetup)], project);
    const tsconfig = readFileSync(path.join(project, "tsconfig.json"), "utf8");
    // TypeScript's own defaults, which the setup must work with, are in force.
    expect(tsconfig).toMatch(/^\s*"module": "nodenext",/m);
    writeFileSync(path.join(project, "index.ts"), indexTs);
    run(process.execPath, [TSC], project);
    const compiled = readFileSync(path.join(project, "index.js"), "utf8");
    expect(compiled.includes("require(")).toBe(!esModule);
    // Not execFileSync: the health route answers from this process, which must not be blocked.
    const { stdout } = await promisify(execFile)(process.execPath, ["index.js"], {
      cwd: project,
      env: { ...process.env, BASE_URL: baseUrl, TOKEN: "t" },
      timeout: 30_000,
    });
    expect(stdout).toBe("the service is ok\n");
  },
  60_000,
);

it("gives import and require the same objects: one ServiceError class", () => {
  const project = newProject(true);
  const check = [
    'import { createRequire } from "node:module";',
    'import * as imported from "@twin-resource-service/client";',
    'const required = createRequire(import.meta.url)("@twin-resource-service/client");',
    "const names = Object.keys(required).filter((name) => name !== '__esModule');",
    "const same = names.every((name) => imported[name] === required[name]);",
    "console.log(names.length > 10 && same && imported.ServiceError === required.ServiceError);",
  ].join("\n");
  writeFileSync(path.join(project, "check.js"), check);
  expect(run(process.execPath, ["check.js"], project).trim()).toBe("true");
});
