import {
  type CommandSpec,
  exitCodeOf,
  helpText,
  parseCommandLine,
  UsageError,
  usageLine,
} from "../../dev/cli-options";
import { StartupError } from "../../dev/startup-error";

const SPEC = {
  command: "npm run demo",
  summary: "Does a demo.",
  arguments: [{ name: "topic", description: "the topic" }],
  numbers: {
    count: { placeholder: "N", description: "at most N" },
    hours: { placeholder: "H", description: "hours", max: 24 },
  },
  flags: { app: { description: "as an app" } },
  examples: ["npm run demo -- t --count 2"],
} satisfies CommandSpec<"count" | "hours", "app">;

function refusal(args: string[]): string {
  try {
    parseCommandLine(SPEC, args);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect(exitCodeOf(error)).toBe(2);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(args)} was accepted`);
}

describe("dev/cli-options", () => {
  it("parses the declared arguments, whole numbers and switches", () => {
    expect(parseCommandLine(SPEC, ["t", "--count", "3", "--app", "--hours=24"])).toEqual({
      positionals: ["t"],
      numbers: { count: 3, hours: 24 },
      flags: { app: true },
    });
    expect(parseCommandLine(SPEC, [])).toEqual({ positionals: [], numbers: {}, flags: {} });
    expect(parseCommandLine(SPEC, ["--help"])).toBe("help");
    expect(parseCommandLine(SPEC, ["t", "-h", "--count", "2"])).toBe("help");
  });

  it("generates the help from the declaration: usage line, arguments, options, example", () => {
    expect(usageLine(SPEC)).toBe("npm run demo -- [topic] [--count N] [--hours H] [--app]");
    expect(usageLine({ command: "npm run seed", summary: "", examples: [] })).toBe("npm run seed");
    expect(helpText(SPEC)).toBe(
      [
        "Usage: npm run demo -- [topic] [--count N] [--hours H] [--app]",
        "",
        "Does a demo.",
        "",
        "Arguments:",
        "  topic   the topic",
        "",
        "Options:",
        "  --count N    at most N",
        "  --hours H    hours",
        "  --app        as an app",
        "  -h, --help   show this help",
        "",
        "Example:",
        "  npm run demo -- t --count 2",
        "",
      ].join("\n"),
    );
  });

  it.each<[string[], string]>([
    [["--bogus"], "Unknown option '--bogus'"],
    [["-x"], "Unknown option '-x'"],
    [["--count"], "--count needs a value: --count N"],
    [["--count", "--app"], "--count needs a value: --count N"],
    [["--app=yes"], "--app takes no value"],
    [["--count", "0"], "--count takes a whole number of 1 or more"],
    [["--count", "2.5"], "--count takes a whole number of 1 or more"],
    [["--hours", "25"], "--hours takes a whole number from 1 to 24"],
    [["a", "b"], "Too many arguments: at most 1 (topic)"],
  ])("refuses %j on one line with the hint", (args, message) => {
    expect(refusal(args)).toBe(`npm run demo: ${message}. Run \`npm run demo -- --help\` for its options.`);
  });

  it("refuses an argument to a command that takes none", () => {
    expect(() => parseCommandLine({ command: "npm run seed", summary: "", examples: [] }, ["now"])).toThrow(
      "npm run seed: Unexpected argument 'now'. Run `npm run seed -- --help` for its options.",
    );
  });

  it("gives other failures exit code 1", () => {
    expect(exitCodeOf(new StartupError("no stack"))).toBe(1);
    expect(exitCodeOf(new Error("bug"))).toBe(1);
  });
});
