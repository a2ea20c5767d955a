import { parseArgs } from "node:util";
import { StartupError } from "./startup-error";

/**
 * The command line of the repository's helpers (`npm run receive`, `dead-letters`, `token`, `seed`,
 * `rotate-key`): each declares its arguments and options with a description once, and gets
 * `--help` (usage line, arguments, options, examples) and one-line refusals (exit code 2, with a
 * hint to `--help`) from that declaration. node's util.parseArgs parses underneath.
 * client/cli/ has the `twin` CLI's own parser; a later change can merge the two.
 */

/** `--name N`: a whole number of 1 or more (at most `max`). */
export type NumberOption = { placeholder: string; description: string; max?: number };
/** `--name`: a switch. */
export type FlagOption = { description: string };
/** An optional positional argument; a command takes at most as many as it declares. */
export type Argument = { name: string; description: string };

export type CommandSpec<N extends string, F extends string> = {
  /** How it is run, e.g. `npm run receive` (options follow `--`). */
  command: string;
  summary: string;
  arguments?: readonly Argument[];
  numbers?: Record<N, NumberOption>;
  flags?: Record<F, FlagOption>;
  examples: readonly string[];
};

export type CommandLine<N extends string, F extends string> = {
  positionals: string[];
  numbers: Partial<Record<N, number>>;
  flags: Partial<Record<F, boolean>>;
};

/** A command line the command cannot run with: exit code 2, its message one line ending in the hint. */
export class UsageError extends StartupError {
  override readonly name: string = "UsageError";
  readonly exitCode = 2;
}

/** 2 for a usage error, 1 for any other failure. */
export function exitCodeOf(error: unknown): number {
  return error instanceof UsageError ? error.exitCode : 1;
}

function entries<T>(record: Record<string, T> | undefined): [string, T][] {
  return Object.entries(record ?? {});
}

/** `npm run receive -- --help`: how to ask for the options. */
export function helpHint(spec: CommandSpec<string, string>): string {
  return `Run \`${spec.command} -- --help\` for its options.`;
}

/** A usage error for `spec`: `message` and the hint, on one line. */
export function usageError(spec: CommandSpec<string, string>, message: string): UsageError {
  return new UsageError(`${spec.command}: ${message.replace(/\.$/, "")}. ${helpHint(spec)}`);
}

export function usageLine(spec: CommandSpec<string, string>): string {
  const parts = [
    ...(spec.arguments ?? []).map((argument) => `[${argument.name}]`),
    ...entries(spec.numbers).map(([name, option]) => `[--${name} ${option.placeholder}]`),
    ...entries(spec.flags).map(([name]) => `[--${name}]`),
  ];
  return parts.length === 0 ? spec.command : `${spec.command} -- ${parts.join(" ")}`;
}

/** The text `--help` prints. */
export function helpText(spec: CommandSpec<string, string>): string {
  const table = (rows: [string, string][]): string[] => {
    const width = Math.max(...rows.map(([left]) => left.length)) + 3;
    return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
  };
  const options: [string, string][] = [
    ...entries(spec.numbers).map(([name, option]): [string, string] => [
      `--${name} ${option.placeholder}`,
      option.description,
    ]),
    ...entries(spec.flags).map(([name, option]): [string, string] => [`--${name}`, option.description]),
    ["-h, --help", "show this help"],
  ];
  const args = (spec.arguments ?? []).map((argument): [string, string] => [
    argument.name,
    argument.description,
  ]);
  return [
    `Usage: ${usageLine(spec)}`,
    "",
    spec.summary,
    ...(args.length > 0 ? ["", "Arguments:", ...table(args)] : []),
    "",
    "Options:",
    ...table(options),
    "",
    spec.examples.length === 1 ? "Example:" : "Examples:",
    ...spec.examples.map((example) => `  ${example}`),
    "",
  ].join("\n");
}

/** The option parseArgs names in its message (`Unknown option '--x'`, `Option '--x <value>' ...`). */
function namedOption(message: string): string | undefined {
  return /'(-[^'\s]*)/.exec(message)?.[1];
}

function refusal(spec: CommandSpec<string, string>, error: Error & { code?: string }): string {
  const option = namedOption(error.message);
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return `Unknown option '${option}'`;
  if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option) {
    const name = option.replace(/^--?/, "");
    const number = spec.numbers?.[name];
    if (number) return `--${name} needs a value: --${name} ${number.placeholder}`;
    return `--${name} takes no value`;
  }
  return error.message.split(/\.\s/)[0] ?? error.message;
}

/**
 * The command line `args` asks for, or `"help"` for `--help`/`-h`. Throws a UsageError for an
 * unknown option, a missing or malformed value, or more arguments than the command declares.
 */
export function parseCommandLine<N extends string = never, F extends string = never>(
  spec: CommandSpec<N, F>,
  args: readonly string[],
): CommandLine<N, F> | "help" {
  const numberOptions = entries<NumberOption>(spec.numbers);
  const flagOptions = entries<FlagOption>(spec.flags);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        ...Object.fromEntries(numberOptions.map(([name]) => [name, { type: "string" as const }])),
        ...Object.fromEntries(flagOptions.map(([name]) => [name, { type: "boolean" as const }])),
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw usageError(spec, refusal(spec, error as Error));
  }
  if (parsed.values.help === true) return "help";
  const declared = spec.arguments ?? [];
  if (parsed.positionals.length > declared.length) {
    throw usageError(
      spec,
      declared.length === 0
        ? `Unexpected argument '${parsed.positionals[0]}'`
        : `Too many arguments: at most ${declared.length} (${declared.map((argument) => argument.name).join(", ")})`,
    );
  }
  const numbers: Partial<Record<N, number>> = {};
  for (const [name, option] of numberOptions) {
    const raw = parsed.values[name];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (
      typeof raw !== "string" ||
      !/^\d+$/.test(raw) ||
      value < 1 ||
      (option.max !== undefined && value > option.max)
    ) {
      throw usageError(
        spec,
        option.max === undefined
          ? `--${name} takes a whole number of 1 or more`
          : `--${name} takes a whole number from 1 to ${option.max}`,
      );
    }
    numbers[name as N] = value;
  }
  const flags: Partial<Record<F, boolean>> = {};
  for (const [name] of flagOptions) if (parsed.values[name] === true) flags[name as F] = true;
  return { positionals: parsed.positionals, numbers, flags };
}

/**
 * The helper's command line, from process.argv: with `--help` prints the help and exits 0; a
 * usage error prints its one line to stderr and exits 2.
 */
export function commandLine<N extends string = never, F extends string = never>(
  spec: CommandSpec<N, F>,
  args: readonly string[] = process.argv.slice(2),
): CommandLine<N, F> {
  let parsed: CommandLine<N, F> | "help";
  try {
    parsed = parseCommandLine(spec, args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    process.exit(error.exitCode);
  }
  if (parsed === "help") {
    process.stdout.write(helpText(spec));
    process.exit(0);
  }
  return parsed;
}
