import { parseArgs } from "node:util";
import { StartupError } from "./startup-error";

/** The positional arguments, numeric `--name N` options and `--flag` switches of a small dev/ command. */
export function parseCommandLine<Name extends string, Flag extends string = never>(
  args: string[],
  numericOptions: readonly Name[],
  usage: string,
  flagOptions: readonly Flag[] = [],
): { positionals: string[]; numbers: Partial<Record<Name, number>>; flags: Partial<Record<Flag, boolean>> } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...Object.fromEntries(numericOptions.map((name) => [name, { type: "string" as const }])),
        ...Object.fromEntries(flagOptions.map((name) => [name, { type: "boolean" as const }])),
      },
    });
  } catch (error) {
    throw new StartupError(`${(error as Error).message}\nUsage: ${usage}`);
  }
  const numbers: Partial<Record<Name, number>> = {};
  for (const name of numericOptions) {
    const raw = parsed.values[name];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (typeof raw !== "string" || !/^\d+$/.test(raw) || value < 1) {
      throw new StartupError(`--${name} takes a whole number of 1 or more.\nUsage: ${usage}`);
    }
    numbers[name] = value;
  }
  const flags: Partial<Record<Flag, boolean>> = {};
  for (const name of flagOptions) if (parsed.values[name] === true) flags[name] = true;
  return { positionals: parsed.positionals, numbers, flags };
}
