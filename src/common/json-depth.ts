/**
 * How deep request JSON may nest (containers inside containers). Deeper input would overflow the
 * stack of recursive code (zod, JSON.stringify); src/common/strict-json.ts enforces it while it
 * scans, iteratively, since a 1 MiB body of `[[[[…` is ~500,000 levels deep.
 */
export const MAX_JSON_DEPTH = 100;
