import { rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { codeBlocks, documentationPages, readPage } from "./doc-blocks";
import { installPacked, type PackedPackage, packPackages, run } from "./packed-packages";

// Every TypeScript block of the README, docs/ and the package READMEs compiles as another project
// would compile it: against the two packages as `npm pack` packs them, installed in an empty
// project. A block may opt out with `<!-- not-compiled -->` only if it is deliberately partial.

const snippets = documentationPages().flatMap((page) =>
  codeBlocks(page, readPage(page)).filter((block) => ["ts", "typescript"].includes(block.language)),
);
const compiled = snippets.filter((snippet) => !snippet.optedOut);

let project: string;
let tarballs: PackedPackage[];

/** An empty project with the tarballs installed, and @types/node, which a TypeScript project has. */
function emptyProjectWith(packages: PackedPackage[]): string {
  const folder = tempDir("docs-project-");
  installPacked(folder, packages, ["@types/node"]);
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
