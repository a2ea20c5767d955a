import {
  type OptionSpec,
  optionHelp,
  parseLine,
  parseSmallCommand,
  type SmallCommand,
  smallCommandHelp,
  smallCommandRefusal,
  stringOption,
  UsageError,
  wholeNumberOption,
} from "../../client/cli/args";

const OPTIONS: OptionSpec[] = [
  { name: "count", type: "string", value: "N", description: "at most N" },
  { name: "output", type: "string", short: "o", value: "table|json", description: "table or json" },
  { name: "app", type: "boolean", description: "as an app" },
];

const DEMO: SmallCommand = {
  command: "npm run demo",
  summary: "Does a demo.",
  arguments: [{ name: "topic", description: "the topic" }],
  options: OPTIONS,
  examples: ["npm run demo -- t --count 2"],
};
const BARE: SmallCommand = { command: "npm run seed", summary: "Seeds.", examples: ["npm run seed"] };

function refusal(command: SmallCommand, args: string[]): string {
  try {
    parseSmallCommand(command, args);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return smallCommandRefusal(command, error as UsageError);
  }
  throw new Error(`${JSON.stringify(args)} was accepted`);
}

describe("client/cli/args", () => {
  it("parses declared options and arguments, and refuses an undeclared option", () => {
    expect(parseLine(["t", "--count=3", "-o", "json", "--app"], OPTIONS)).toEqual({
      positionals: ["t"],
      values: { count: "3", output: "json", app: true },
    });
    expect(() => parseLine(["--bogus"], OPTIONS, "Usage: demo")).toThrow(
      expect.objectContaining({ name: "UsageError", usage: "Usage: demo" }),
    );
  });

  it("trims string options and refuses an empty one", () => {
    expect(stringOption({ name: "  a " }, "name")).toBe("a");
    expect(stringOption({}, "name")).toBeUndefined();
    expect(() => stringOption({ name: " " }, "name")).toThrow("--name must not be empty.");
  });

  it.each<[string, number | undefined, number | undefined]>([
    ["1", undefined, 1],
    ["24", 24, 24],
  ])("takes %s as a whole number (at most %s)", (raw, max, value) => {
    expect(wholeNumberOption({ count: raw }, "count", max)).toBe(value);
  });

  it.each<[string, number | undefined, string]>([
    ["0", undefined, "--count takes a whole number of 1 or more."],
    ["2.5", undefined, "--count takes a whole number of 1 or more."],
    ["soon", undefined, "--count takes a whole number of 1 or more."],
    ["25", 24, "--count takes a whole number from 1 to 24."],
  ])("refuses %s as a whole number (at most %s)", (raw, max, message) => {
    expect(() => wholeNumberOption({ count: raw }, "count", max)).toThrow(message);
  });

  it("lists the options aligned, with their values' names", () => {
    expect(optionHelp(OPTIONS)).toBe(
      [
        "  --count <N>                at most N",
        "  -o, --output <table|json>  table or json",
        "  --app                      as an app",
      ].join("\n"),
    );
  });

  it("parses a small command's line, and `--help` or `-h` anywhere in it", () => {
    expect(parseSmallCommand(DEMO, ["t", "--count", "3", "--app"])).toEqual({
      positionals: ["t"],
      values: { count: "3", app: true },
    });
    expect(parseSmallCommand(DEMO, [])).toEqual({ positionals: [], values: {} });
    expect(parseSmallCommand(DEMO, ["--help"])).toBe("help");
    expect(parseSmallCommand(DEMO, ["t", "-h", "--count", "2"])).toBe("help");
  });

  it("makes a small command's help from its declaration: usage, arguments, options, examples", () => {
    expect(smallCommandHelp(DEMO)).toBe(
      [
        "Usage: npm run demo -- [topic] [options]",
        "",
        "Does a demo.",
        "",
        "Arguments:",
        "  topic  the topic",
        "",
        "Options:",
        "  --count <N>                at most N",
        "  -o, --output <table|json>  table or json",
        "  --app                      as an app",
        "  -h, --help                 show this help",
        "",
        "Example:",
        "  npm run demo -- t --count 2",
        "",
      ].join("\n"),
    );
    expect(smallCommandHelp({ ...BARE, examples: ["a", "b"] })).toBe(
      [
        "Usage: npm run seed",
        "",
        "Seeds.",
        "",
        "Options:",
        "  -h, --help  show this help",
        "",
        "Examples:",
        "  a",
        "  b",
        "",
      ].join("\n"),
    );
  });

  it.each<[string[], string]>([
    [["--bogus"], "Unknown option '--bogus'"],
    [["-x"], "Unknown option '-x'"],
    [["--count"], "--count needs a value: --count <N>"],
    [["--count", "--app"], "--count needs a value: --count <N>"],
    [["-o"], "--output needs a value: --output <table|json>"],
    [["--app=yes"], "--app takes no value"],
    [["a", "b"], "Too many arguments: at most 1 (topic)"],
  ])("refuses %j on one line with the hint to --help", (args, message) => {
    expect(refusal(DEMO, args)).toBe(
      `npm run demo: ${message}. Run \`npm run demo -- --help\` for its options.`,
    );
  });

  it("refuses an argument to a small command that takes none", () => {
    expect(refusal(BARE, ["now"])).toBe(
      "npm run seed: Unexpected argument 'now'. Run `npm run seed -- --help` for its options.",
    );
  });
});
