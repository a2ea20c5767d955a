import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { codeBlocks, documentationPages, ROOT, readPage } from "./doc-blocks";

// Every TypeScript block of the README, docs/ and the package READMEs compiles as another project
// would compile it: against the two packages as `npm pack` packs them, installed in an empty
// project. A block may opt out with `<!-- not-compiled -->` only if it is deliberately partial.

const snippets = documentationPages().flatMap((page) =>
  codeBlocks(page, readPage(page)).filter((block) => ["ts", "typescript"].includes(block.language)),
);
const compiled = snippets.filter((snippet) => !snippet.optedOut);

let project: string;
let tarballs: { name: string; file: string }[];

function run(command: string, args: string[], cwd = ROOT): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Builds both packages into `stage` the way `npm run build` does, then packs them as `npm run packages`. */
function packPackages(stage: string): { name: string; file: string }[] {
  run(process.execPath, [path.join(ROOT, "client", "stage-package.js"), path.join(stage, "client")]);
  const pulumi = path.join(stage, "pulumi");
  run(process.execPath, [
    require.resolve("typescript/bin/tsc"),
    "-p",
    path.join(ROOT, "pulumi", "tsconfig.json"),
    "--outDir",
    path.join(pulumi, "dist"),
  ]);
  copyFileSync(path.join(ROOT, "pulumi", "package.json"), path.join(pulumi, "package.json"));
  copyFileSync(path.join(ROOT, "pulumi", "README.md"), path.join(pulumi, "README.md"));
  const packed = JSON.parse(
    run("npm", ["pack", "--json", path.join(stage, "client"), pulumi, "--pack-destination", stage]),
  ) as { name: string; filename: string }[];
  return packed.map(({ name, filename }) => ({ name, file: path.join(stage, filename) }));
}

/**
 * Installs tarballs in an empty project as npm would: each package, and the dependencies it
 * declares (only those: a package that requires one it does not declare fails to load), linked
 * from this repository's node_modules; and @types/node, which a TypeScript project has.
 */
function emptyProjectWith(packages: { name: string; file: string }[]): string {
  const folder = tempDir("docs-project-");
  const declared = packages.flatMap(({ name, file }) => {
    const target = path.join(folder, "node_modules", name);
    mkdirSync(target, { recursive: true });
    run("tar", ["-xzf", file, "-C", target, "--strip-components=1"]);
    const manifest = JSON.parse(readFileSync(path.join(target, "package.json"), "utf8"));
    return Object.keys(manifest.dependencies ?? {});
  });
  for (const name of new Set([...declared, "@types/node"])) {
    const link = path.join(folder, "node_modules", name);
    if (existsSync(link)) continue;
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules", name), link);
  }
  return folder;
}

function diagnosticsOf(files: string[], options: ts.CompilerOptions): Map<string, string[]> {
  const host = ts.createCompilerHost(options);
  host.getCurrentDirectory = () => project;
  const program = ts.createProgram(files, options, host);
  const found = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file?.fileName;
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const at =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
        : undefined;
    const key = file !== undefined && found.has(file) ? file : (files[0] as string);
    found.get(key)?.push(`${at ? `line ${at.line + 1}: ` : ""}${text}`);
  }
  return found;
}

const COMMON: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  strict: true,
  noEmit: true,
  types: ["node"],
  skipLibCheck: true,
};

let commonJs: Map<string, string[]>;
let nodeNext: Map<string, string[]>;
const fileOf = new Map<string, string>();

beforeAll(() => {
  tarballs = packPackages(tempDir("docs-packages-"));
  project = emptyProjectWith(tarballs);
  for (const [index, snippet] of compiled.entries()) {
    const file = path.join(project, `snippet-${index}.ts`);
    writeFileSync(file, snippet.code);
    fileOf.set(snippet.where, file);
  }
  const files = [...fileOf.values()];
  commonJs = diagnosticsOf(files, {
    ...COMMON,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  });
  nodeNext = diagnosticsOf(files, {
    ...COMMON,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
}, 180_000);

// Every folder it made (the staged packages, their tarballs, the projects), not only the last.
afterAll(removeTempDirs);

it("finds TypeScript to check in the README and in both package READMEs", () => {
  const pages = ["README.md", "client/README.md", "pulumi/README.md"];
  expect(pages.filter((page) => !compiled.some((snippet) => snippet.where.startsWith(`${page}:`)))).toEqual(
    [],
  );
});

it.each(compiled.map((snippet) => [snippet.where]))(
  "%s compiles (CommonJS and NodeNext resolution)",
  (where) => {
    const file = fileOf.get(where) as string;
    expect({ where, errors: commonJs.get(file) }).toEqual({ where, errors: [] });
    expect({ where, errors: nodeNext.get(file) }).toEqual({ where, errors: [] });
  },
);

it("packs both packages under their names", () => {
  expect(tarballs.map(({ name }) => name)).toEqual([
    "@twin-resource-service/client",
    "@twin-resource-service/pulumi",
  ]);
});

it.each([
  ["@twin-resource-service/client", "TwinServiceClient"],
  ["@twin-resource-service/pulumi", "QueueEndpoint"],
])("%s installs alone in an empty project and loads", (name, exported) => {
  const alone = emptyProjectWith(tarballs.filter((tarball) => tarball.name === name));
  try {
    const loaded = run(
      process.execPath,
      ["-e", `console.log(typeof require(${JSON.stringify(name)}).${exported})`],
      alone,
    );
    expect(loaded.trim()).toBe("function");
  } finally {
    rmSync(alone, { recursive: true, force: true });
  }
});
