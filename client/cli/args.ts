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
