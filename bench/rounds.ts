/**
 * Several rounds of one measurement, kept whole: a benchmark on a shared machine reports the
 * spread of its rounds, never its best one, and a round that throws is reported next to the
 * figures (with what it threw), not dropped.
 */
export interface Rounds<T> {
  /** The rounds that finished, in the order they ran. */
  values: T[];
  /** The rounds that threw: their number (from 1) and the error's message. */
  errors: { round: number; message: string }[];
}

export async function runRounds<T>(
  rounds: number,
  measure: (round: number) => Promise<T>,
): Promise<Rounds<T>> {
  const result: Rounds<T> = { values: [], errors: [] };
  for (let round = 1; round <= rounds; round++) {
    try {
      result.values.push(await measure(round));
    } catch (error) {
      result.errors.push({ round, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}

/** Smallest and largest of the finite values; undefined when there are none. */
export function spread(values: readonly number[]): { min: number; max: number } | undefined {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return undefined;
  return { min: Math.min(...finite), max: Math.max(...finite) };
}

/** "1,200 – 1,450" (or one figure when every round agrees); "n/a" when no round finished. */
export function formatRange(values: readonly number[], format: (value: number) => string): string {
  const range = spread(values);
  if (range === undefined) return "n/a";
  const low = format(range.min);
  const high = format(range.max);
  return low === high ? low : `${low} – ${high}`;
}

/**
 * Whether a goal holds in every finished round, in some, or none: "met", "met in 2 of 3 rounds",
 * "NOT met". `unit` names what the values are when they are not rounds (e.g. a soak's windows).
 */
export function goalVerdict(
  values: readonly number[],
  holds: (value: number) => boolean,
  unit = "rounds",
): string {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return "not measured";
  const met = finite.filter(holds).length;
  if (met === finite.length) return "met";
  return met === 0 ? "NOT met" : `met in ${met} of ${finite.length} ${unit}`;
}

/** The lines that say which rounds errored, for the report under a table; empty when none did. */
export function roundErrors(label: string, rounds: Rounds<unknown>): string[] {
  return rounds.errors.map((error) => `  ${label}: round ${error.round} failed: ${error.message}`);
}
