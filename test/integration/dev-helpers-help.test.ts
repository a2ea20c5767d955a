import { execFile } from "node:child_process";
import * as path from "node:path";

// The repository's helpers as `npm run <name> -- ...` runs them (the built dev/*-main.js): each
// answers --help from its declared options, and refuses an unknown option on one line, exit code 2.

const ROOT = path.join(__dirname, "..", "..");

type Run = { code: number | null; stdout: string; stderr: string };

function run(main: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, "dist", "dev", main), ...args],
      { cwd: ROOT },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

const HELPERS: [string, string, string[]][] = [
  ["receive", "receive-main.js", ["topic", "subscription", "--count N", "--timeout SECONDS"]],
  ["dead-letters", "dead-letters-main.js", ["--wait SECONDS", "--identity"]],
  ["token", "token-main.js", ["name", "--hours N", "--app", "--object-id"]],
  ["seed", "seed-main.js", []],
  ["rotate-key", "rotate-key-main.js", []],
];

describe.each(HELPERS)("npm run %s", (name, main, options) => {
  it("answers --help (and -h) with its usage, options and an example, exit code 0", async () => {
    const help = await run(main, ["--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(new RegExp(`^Usage: npm run ${name}\\b`));
    for (const option of options) expect(help.stdout).toContain(`  ${option} `);
    expect(help.stdout).toContain("-h, --help");
    expect(help.stdout).toMatch(new RegExp(`Examples?:\\n  .*npm run (-s )?${name}`));
    expect((await run(main, ["-h"])).stdout).toBe(help.stdout);
  });

  it("refuses an unknown option on one line with a hint to --help, exit code 2", async () => {
    const refused = await run(main, ["--bogus"]);
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toBe(
      `npm run ${name}: Unknown option '--bogus'. Run \`npm run ${name} -- --help\` for its options.\n`,
    );
  });
});

it("refuses a missing value and a malformed one the same way", async () => {
  const missing = await run("receive-main.js", ["--count"]);
  expect(missing).toMatchObject({ code: 2, stdout: "" });
  expect(missing.stderr).toMatch(
    /^npm run receive: --count needs a value: --count N\. Run `npm run receive -- --help`/,
  );
  const malformed = await run("dead-letters-main.js", ["--wait", "soon"]);
  expect(malformed).toMatchObject({ code: 2, stdout: "" });
  expect(malformed.stderr).toMatch(/^npm run dead-letters: --wait takes a whole number of 1 or more\. Run /);
});
