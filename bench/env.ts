/** A positive whole number from the environment, or the default; anything else stops the run. */
export function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`);
  return value;
}

/** A comma-separated list of positive whole numbers, e.g. BENCH_FANOUT=1,2,4,6. */
export function positiveIntegers(name: string, fallback: readonly number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return [...fallback];
  const values = raw.split(",").map((part) => Number(part.trim()));
  if (values.some((value) => !Number.isInteger(value) || value < 1)) {
    throw new Error(`${name} must be comma-separated positive whole numbers, e.g. 1,2,4,6`);
  }
  return values;
}
