import { rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { codeBlocks, readPage } from "./doc-blocks";
import { installPacked, type PackedPackage, packPackages, run } from "./packed-packages";

// Every TypeScript block of some Markdown pages compiles as another project would compile it:
// against packages as `npm pack` packs them, installed in an empty project. A block may opt out
// with `<!-- not-compiled -->` only if it is deliberately partial. snippets.test.ts checks the
// README, docs/ and client/README.md against the client; pulumi/test/readme-snippets.test.ts checks
// pulumi/README.md against the Pulumi package (it needs pulumi/'s own install).

export interface SnippetPages {
  pages: string[];
  /** The pages among them that must have TypeScript to check. */
  withTypeScript: string[];
  /** The packages the pages import, each with a name it exports (a function). */
  packages: { name: string; exported: string }[];
  /** What the pages say to install beside the packages. */
  beside?: string[];
}

/**
 * An empty project with the tarballs installed, and @types/node, which a TypeScript project has
 * (and `beside`, what the pages say to install).
 */
function emptyProjectWith(packages: PackedPackage[], beside: string[] = []): string {
  const folder = tempDir("docs-project-");
  installPacked(folder, packages, [...beside, "@types/node"]);
  return folder;
}

function diagnosticsOf(project: string, files: string[], options: ts.CompilerOptions): Map<string, string[]> {
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

/** The tests of the pages' snippets, in the test file that calls it. */
export function snippetTests({ pages, withTypeScript, packages, beside = [] }: SnippetPages): void {
  const snippets = pages.flatMap((page) =>
    codeBlocks(page, readPage(page)).filter((block) => ["ts", "typescript"].includes(block.language)),
  );
  const compiled = snippets.filter((snippet) => !snippet.optedOut);
  const names = packages.map(({ name }) => name);

  let tarballs: PackedPackage[];
  let commonJs: Map<string, string[]>;
  let nodeNext: Map<string, string[]>;
  const fileOf = new Map<string, string>();

  beforeAll(() => {
    const pulumi = names.includes("@twin-resource-service/pulumi");
    tarballs = packPackages(tempDir("docs-packages-"), { pulumi }).filter(({ name }) => names.includes(name));
    const project = emptyProjectWith(tarballs, beside);
    for (const [index, snippet] of compiled.entries()) {
      const file = path.join(project, `snippet-${index}.ts`);
      writeFileSync(file, snippet.code);
      fileOf.set(snippet.where, file);
    }
    const files = [...fileOf.values()];
    commonJs = diagnosticsOf(project, files, {
      ...COMMON,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
    });
    nodeNext = diagnosticsOf(project, files, {
      ...COMMON,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
  }, 180_000);

  // Every folder it made (the staged packages, their tarballs, the projects), not only the last.
  afterAll(removeTempDirs);

  it.each(withTypeScript.map((page) => [page]))("finds TypeScript to check in %s", (page) => {
    expect(compiled.some((snippet) => snippet.where.startsWith(`${page}:`))).toBe(true);
  });

  it.each(compiled.map((snippet) => [snippet.where]))(
    "%s compiles (CommonJS and NodeNext resolution)",
    (where) => {
      const file = fileOf.get(where) as string;
      expect({ where, errors: commonJs.get(file) }).toEqual({ where, errors: [] });
      expect({ where, errors: nodeNext.get(file) }).toEqual({ where, errors: [] });
    },
  );

  it(`packs ${names.join(" and ")} under ${names.length > 1 ? "their names" : "its name"}`, () => {
    expect(tarballs.map(({ name }) => name)).toEqual(names);
  });

  it.each(packages.map(({ name, exported }) => [name, exported]))(
    "%s installs alone in an empty project and loads",
    (name, exported) => {
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
    },
  );
}
