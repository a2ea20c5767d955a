import { spawnSync } from "node:child_process";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { removeTempDirs, tempDir } from "../support/temp-dirs";
import { type CodeBlock, codeBlocks, readPage } from "./doc-blocks";
import { installPacked, type PackedPackage, packPackages, run } from "./packed-packages";

// A package README's TypeScript examples, copied into a new project as a user would copy them:
// the package installed from its tarball, with what the README says to install beside it, then
// `tsc --init` with TypeScript's own defaults (strict, exactOptionalPropertyTypes,
// noUncheckedIndexedAccess, module nodenext, verbatimModuleSyntax, declaration) and plain `tsc`.
// One new project per example. snippets.test.ts checks the same blocks under looser options, with
// the compiler API; this is the tsc a user runs. The client's README is checked by
// readme-examples.test.ts here, the Pulumi package's by pulumi/test/readme-examples.test.ts (it
// needs pulumi/'s own install).
//
// Two TypeScripts: this repository's (`npx tsc`), and the one `npm install typescript` installs
// today, an install of its own in test/docs/typescript-today (global setup makes it), so its `tsc`
// does not take the place of the repository's. Another one can be tried with the same checks: `npm install
// typescript@<version>` in a folder of its own, then
// README_EXAMPLES_TYPESCRIPT=<that folder>/node_modules/typescript npx jest test/docs/readme-examples.test.ts

const TYPESCRIPTS = (
  process.env.README_EXAMPLES_TYPESCRIPT
    ? [process.env.README_EXAMPLES_TYPESCRIPT]
    : [
        path.dirname(require.resolve("typescript/package.json")),
        path.dirname(
          require.resolve("typescript/package.json", { paths: [path.join(__dirname, "typescript-today")] }),
        ),
      ]
).map((folder) => ({
  folder,
  version: (JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8")) as { version: string })
    .version,
}));

/** The set-up of client/README.md's "Use it from another project", for every example. */
const INIT_ARGUMENTS = ["--types", "node"];

export interface Readme {
  page: string;
  package: string;
  /** What the README installs beside the package for its examples. */
  beside: string[];
}

/** The tests of one README's examples, in the test file that calls it. */
export function readmeExampleTests(readme: Readme): void {
  const examples = codeBlocks(readme.page, readPage(readme.page))
    .filter((block) => ["ts", "typescript"].includes(block.language) && !block.optedOut)
    .map((block) => ({ ...readme, block }));

  let tarballs: PackedPackage[];

  beforeAll(() => {
    const pulumi = readme.package === "@twin-resource-service/pulumi";
    tarballs = packPackages(tempDir("readme-examples-packages-"), { pulumi });
  }, 180_000);

  afterAll(removeTempDirs);

  /** A new project: `"type": "module"`, the package and what is beside it installed, `tsc --init`. */
  function newProject(packageName: string, beside: string[], typescript: string): string {
    const project = tempDir("readme-example-");
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "my-app", version: "1.0.0", type: "module" }),
    );
    installPacked(
      project,
      tarballs.filter((tarball) => tarball.name === packageName),
      [...beside, "@types/node"],
    );
    // Linked as installPacked links the rest, but from wherever that TypeScript is.
    symlinkSync(typescript, path.join(project, "node_modules", "typescript"));
    run(process.execPath, [tsc(project), "--init", ...INIT_ARGUMENTS], project);
    return project;
  }

  function tsc(project: string): string {
    return path.join(project, "node_modules", "typescript", "bin", "tsc");
  }

  /** `npx tsc` in the project: its errors, one a line, as `file(line,col): error TS…: …`. */
  function compile(project: string, block: CodeBlock): string[] {
    writeFileSync(path.join(project, "example.ts"), block.code);
    const result = spawnSync(process.execPath, [tsc(project), "--pretty", "false"], {
      cwd: project,
      encoding: "utf8",
    });
    const output = `${result.stdout}${result.stderr}`;
    // An error's first line names it; the indented lines below it explain it.
    const errors: string[] = [];
    for (const line of output.split("\n")) {
      if (/error TS\d+/.test(line)) errors.push(line);
      else if (/^\s+\S/.test(line) && errors.length > 0) errors.push(`${errors.pop()}\n${line}`);
    }
    if (result.status !== 0 && errors.length === 0) return [`tsc exited ${result.status}: ${output}`];
    return errors;
  }

  it(`finds TypeScript examples in ${readme.page}`, () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it("compiles with two different TypeScripts, the newer one nested apart from the repository's (or the one named)", () => {
    const today = path.join(__dirname, "typescript-today", "node_modules", "typescript");
    const expected = process.env.README_EXAMPLES_TYPESCRIPT
      ? [process.env.README_EXAMPLES_TYPESCRIPT]
      : [TYPESCRIPTS[0]?.folder, today];
    expect(TYPESCRIPTS.map(({ folder }) => folder)).toEqual(expected);
    expect(new Set(TYPESCRIPTS.map(({ version }) => version)).size).toBe(expected.length);
  });

  it.each(TYPESCRIPTS.map(({ version }) => [readme.page, version]))(
    "%s says its examples were compiled with TypeScript %s",
    (page, version) => {
      const text = readPage(page).replace(/\s+/g, " ");
      expect({ page, says: text.includes(`TypeScript ${version}`) }).toEqual({ page, says: true });
    },
  );

  it(`${readme.page} installs what its examples import beside the package`, () => {
    const text = readPage(readme.page);
    for (const name of readme.beside) expect(text).toMatch(new RegExp(`npm install [^\\n]*${name}`));
  });

  it.each(
    examples.flatMap((example) =>
      TYPESCRIPTS.map(
        (typescript) => [example.block.where, typescript.version, example, typescript.folder] as const,
      ),
    ),
  )(
    "%s compiles in a new project with tsc --init's defaults (TypeScript %s)",
    (where, _version, example, typescript) => {
      const project = newProject(example.package, example.beside, typescript);
      const tsconfig = readFileSync(path.join(project, "tsconfig.json"), "utf8");
      // The defaults the examples are held to are those tsc --init wrote.
      for (const option of ['"strict": true', '"exactOptionalPropertyTypes": true', '"module": "nodenext"']) {
        expect(tsconfig).toMatch(new RegExp(`^\\s*${option},`, "m"));
      }
      expect({ where, errors: compile(project, example.block) }).toEqual({ where, errors: [] });
    },
    60_000,
  );
}
