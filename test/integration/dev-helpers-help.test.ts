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
  ["receive", "receive-main.js", ["topic", "subscription", "--count <N>", "--timeout <SECONDS>"]],
  ["token", "token-main.js", ["name", "--hours <N>", "--app", "--object-id"]],
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

it.each<[string[], string]>([
  [["alice", "--hours", "25"], "--hours takes a whole number from 1 to 24"],
  [["--app"], "--app needs a name"],
  [["  "], "The principal name is empty"],
])("refuses what the helper itself finds wrong, exit code 2: token %j", async (args, message) => {
  const refused = await run("token-main.js", args);
  expect(refused).toMatchObject({ code: 2, stdout: "" });
  expect(refused.stderr).toBe(
    `npm run token: ${message}. Run \`npm run token -- --help\` for its options.\n`,
  );
});
