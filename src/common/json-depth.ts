/**
 * How deep request JSON may nest (containers inside containers). Deeper input would overflow the
 * stack of recursive code (zod, JSON.stringify); src/common/strict-json.ts enforces it while it
 * scans, iteratively, since a 1 MiB body of `[[[[…` is ~500,000 levels deep.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether a parsed JSON value nests more than `maxDepth` containers (`[[1]]` nests 2), as
 * strict-json.ts counts them on text. For values that did not come through it (a message put on
 * the events queue directly): found with a stack of its own, never by recursion, which is what
 * such a value would overflow. Stops at the first container past the bound.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const pending: unknown[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const item = pending.pop();
    const depth = depths.pop() as number;
    if (typeof item !== "object" || item === null) continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === "object" && child !== null) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
