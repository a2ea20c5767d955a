import { parseArgs } from "node:util";
import { StartupError } from "./startup-error";

/** The positional arguments and numeric `--name N` options of a small dev/ command. */
export function parseCommandLine<Name extends string>(
  args: string[],
  numericOptions: readonly Name[],
  usage: string,
): { positionals: string[]; numbers: Partial<Record<Name, number>> } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: Object.fromEntries(numericOptions.map((name) => [name, { type: "string" as const }])),
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
  return { positionals: parsed.positionals, numbers };
}
