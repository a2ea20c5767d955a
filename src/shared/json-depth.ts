/** How deep request JSON may nest; deeper input would overflow the stack of recursive code. */
export const MAX_JSON_DEPTH = 100;

/**
 * True when a parsed JSON value nests deeper than `max` levels. Iterative on purpose: a 1 MiB body
 * of `[[[[…` parses fine but is ~500,000 levels deep, which any recursive walk (JSON.stringify
 * included) cannot survive.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop() as { value: unknown; depth: number };
    if (current === null || typeof current !== "object") continue;
    if (depth >= max) return true;
    for (const child of Object.values(current)) pending.push({ value: child, depth: depth + 1 });
  }
  return false;
}
