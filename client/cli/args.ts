import { parseArgs } from "node:util";

/**
 * Command-line parsing for `twin` (and for any small command that wants the same rules): options
 * declared once, with the text `--help` shows for them; unknown options, a missing value and a
 * missing or extra argument are a UsageError (exit code 2). Node's util.parseArgs only: this module
 * imports nothing else, so a dev/ helper can use it as it is.
 */

/** A wrong command line: what is wrong, and the usage to show with it. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

export interface OptionSpec {
  name: string;
  /** `string` takes a value (`--name value` or `--name=value`); `boolean` is a switch. */
  type: "string" | "boolean";
  short?: string;
  /** How the value is called in the help: `--file <path>`. */
  value?: string;
  description: string;
}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface ParsedLine {
  values: OptionValues;
  positionals: string[];
}

function parseConfig(options: readonly OptionSpec[]) {
  return Object.fromEntries(
    options.map((option) => [
      option.name,
      { type: option.type, ...(option.short !== undefined && { short: option.short }) },
    ]),
  );
}

/** The options and arguments of a command line; a UsageError for an option it does not declare. */
export function parseLine(
  args: readonly string[],
  options: readonly OptionSpec[],
  usage?: string,
): ParsedLine {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: parseConfig(options),
      allowPositionals: true,
      strict: true,
    });
    return { values: values as OptionValues, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message, usage);
  }
}

/**
 * The arguments of a command line whose options are not all known yet (the command decides them):
 * the values of the declared options are taken as such, so they are not mistaken for arguments;
 * undeclared options are left for the strict parse.
 */
export function peekLine(args: readonly string[], options: readonly OptionSpec[]): ParsedLine {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: parseConfig(options),
    allowPositionals: true,
    strict: false,
  });
  return { values: values as OptionValues, positionals };
}

/** A string option's value, trimmed; undefined when absent; a UsageError when empty. */
export function stringOption(values: OptionValues, name: string, usage?: string): string | undefined {
  const value = values[name];
  if (value === undefined || typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (trimmed === "") throw new UsageError(`--${name} must not be empty.`, usage);
  return trimmed;
}

/** The options as `--help` lists them, aligned. */
export function optionHelp(options: readonly OptionSpec[], indent = "  "): string {
  const heads = options.map(
    (option) =>
      `${option.short !== undefined ? `-${option.short}, ` : ""}--${option.name}${
        option.type === "string" ? ` <${option.value ?? "value"}>` : ""
      }`,
  );
  const width = Math.max(0, ...heads.map((head) => head.length));
  return options
    .map((option, index) => `${indent}${(heads[index] ?? "").padEnd(width)}  ${option.description}`)
    .join("\n");
}

/** A whole-number option's value, 1 or more (at most `max`); undefined when absent; a UsageError otherwise. */
export function wholeNumberOption(
  values: OptionValues,
  name: string,
  max?: number,
  usage?: string,
): number | undefined {
  const raw = stringOption(values, name, usage);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (/^\d+$/.test(raw) && value >= 1 && (max === undefined || value <= max)) return value;
  throw new UsageError(
    `--${name} takes a whole number ${max === undefined ? "of 1 or more" : `from 1 to ${max}`}.`,
    usage,
  );
}

/**
 * A small command (a repository helper such as `npm run receive`), declared once: its `--help`
 * and its one-line refusals come from the declaration.
 */
export interface SmallCommand {
  /** How it is run, e.g. `npm run receive`; its arguments and options follow `--`. */
  command: string;
  summary: string;
  /** Its optional arguments, in order; more are refused. */
  arguments?: readonly { name: string; description: string }[];
  options?: readonly OptionSpec[];
  examples: readonly string[];
}

const HELP_OPTION: OptionSpec = { name: "help", type: "boolean", short: "h", description: "show this help" };

/** The text `--help` prints for a small command. */
export function smallCommandHelp(command: SmallCommand): string {
  const args = command.arguments ?? [];
  const options = command.options ?? [];
  const parts = [
    ...args.map((argument) => `[${argument.name}]`),
    ...(options.length > 0 ? ["[options]"] : []),
  ];
  const width = Math.max(0, ...args.map((argument) => argument.name.length));
  return [
    `Usage: ${command.command}${parts.length > 0 ? ` -- ${parts.join(" ")}` : ""}`,
    "",
    command.summary,
    ...(args.length > 0 ? ["", "Arguments:"] : []),
    ...args.map((argument) => `  ${argument.name.padEnd(width)}  ${argument.description}`),
    "",
    "Options:",
    optionHelp([...options, HELP_OPTION]),
    "",
    command.examples.length === 1 ? "Example:" : "Examples:",
    ...command.examples.map((example) => `  ${example}`),
    "",
  ].join("\n");
}

/** parseArgs's message made one short sentence: what is wrong with which option. */
function refusal(message: string, options: readonly OptionSpec[]): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
  if (unknown !== undefined) return `Unknown option '${unknown}'.`;
  const named = /^Option '(?:-\w, )?(-{1,2}[^' ,]+)/.exec(message)?.[1];
  const option = options.find((each) => `--${each.name}` === named || `-${each.short}` === named);
  if (option === undefined) return message.split(/\.\s|\n/)[0] ?? message;
  return option.type === "string"
    ? `--${option.name} needs a value: --${option.name} <${option.value ?? "value"}>.`
    : `--${option.name} takes no value.`;
}

/**
 * A small command's command line, or `"help"` for `--help`/`-h`; a UsageError, one short sentence,
 * for an option it does not declare, a missing value, or more arguments than it declares.
 */
export function parseSmallCommand(command: SmallCommand, args: readonly string[]): ParsedLine | "help" {
  const options = [...(command.options ?? []), HELP_OPTION];
  let line: ParsedLine;
  try {
    line = parseLine(args, options);
  } catch (error) {
    throw new UsageError(refusal((error as Error).message, options));
  }
  if (line.values.help === true) return "help";
  const declared = command.arguments ?? [];
  const extra = line.positionals[declared.length];
  if (extra === undefined) return line;
  throw new UsageError(
    declared.length === 0
      ? `Unexpected argument '${extra}'.`
      : `Too many arguments: at most ${declared.length} (${declared.map((argument) => argument.name).join(", ")}).`,
  );
}

/** A small command's refusal, on one line: `npm run receive: <what is wrong>. Run ... --help ...` */
export function smallCommandRefusal(command: SmallCommand, error: UsageError): string {
  return `${command.command}: ${error.message.replace(/\.$/, "")}. Run \`${command.command} -- --help\` for its options.`;
}
