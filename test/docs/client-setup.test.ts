import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { promisify } from "node:util";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { codeBlocks, readPage } from "./doc-blocks";
import { installPacked, type PackedPackage, packPackages, run } from "./packed-packages";

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

let client: PackedPackage[];
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  client = packPackages(tempDir("client-setup-stage-"), { pulumi: false });
  // The service's health route, as far as the example goes; any other path answers an ARM error.
  server = http.createServer((request, response) => {
    const ok = request.url === "/health";
    response.writeHead(ok ? 200 : 404, { "content-type": "application/json" });
    const refusal = { error: { code: "ResourceNotFound", message: "Nothing here." } };
    response.end(JSON.stringify(ok ? { status: "ok", checks: {} } : refusal));
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
  installPacked(project, client, ["@types/node", "typescript"]);
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
    // A refusal, as the example prints it: the code once (the message starts with it).
    const refused = await promisify(execFile)(process.execPath, ["index.js"], {
      cwd: project,
      env: { ...process.env, BASE_URL: `${baseUrl}/elsewhere`, TOKEN: "t" },
      timeout: 30_000,
    }).then(
      () => ({ stderr: "", code: 0 }),
      (error: { stderr: string; code: number }) => ({ stderr: error.stderr, code: error.code }),
    );
    expect(refused).toEqual({ stderr: "404 ResourceNotFound: Nothing here.\n", code: 1 });
  },
  60_000,
);

it("installs the command line, twin, as the package's bin: it runs and says what went wrong", async () => {
  const project = newProject(false);
  const folder = path.join(project, "node_modules", "@twin-resource-service", "client");
  const manifest = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
  const bin = path.join(folder, manifest.bin.twin);
  expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  expect(run(process.execPath, [bin, "--version"], project)).toBe("0.1.0\n");
  // Any path but /health answers 404 here: exit code 4.
  const missing = await promisify(execFile)(
    process.execPath,
    [bin, "profiles", "show", "p", "--base-url", baseUrl, "--key", "k-secret"],
    { cwd: project, timeout: 30_000 },
  ).then(
    () => ({ code: 0, stderr: "" }),
    (error: { stderr: string; code: number }) => ({ stderr: error.stderr, code: error.code }),
  );
  expect(missing).toEqual({ code: 4, stderr: "error: 404 ResourceNotFound: Nothing here.\n" });
  // The storage commands load the storage SDKs the package declares; the SAS is never printed.
  const storageCalls: [string[], string][] = [
    [["dead-letters", "list", "--container-url", `${baseUrl}/c?sv=1&sig=s3cret`], "list the blobs of"],
    [
      ["poison", "peek", "--queue-service-url", `${baseUrl}/account?sv=1&sig=s3cret`],
      "peek at twin-events-poison of",
    ],
  ];
  for (const [args, what] of storageCalls) {
    const answer = await promisify(execFile)(process.execPath, [bin, ...args], {
      cwd: project,
      timeout: 30_000,
    }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { stderr: string; code: number }) => ({ stderr: error.stderr, code: error.code }),
    );
    expect(answer).toEqual({ code: 4, stderr: expect.stringContaining(`error: cannot ${what} ${baseUrl}`) });
    expect(answer.stderr).not.toContain("s3cret");
  }
  expect(Object.keys(manifest.dependencies)).toEqual(
    expect.arrayContaining(["@azure/storage-blob", "@azure/storage-queue"]),
  );
});

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
