import type { SqlParameter } from "@azure/cosmos";

/** A query's added condition that keeps only some documents, by id, and its parameter. */
export interface OnlyIds {
  clause: string;
  parameters: SqlParameter[];
}

/**
 * ` AND ARRAY_CONTAINS(@only, c.id)` for the documents of the names given (each turned into its
 * document id by `idOf`), or nothing when `names` is undefined (every document).
 */
export function onlyIds(
  names: readonly string[] | undefined,
  idOf: (name: string) => string = (n) => n,
): OnlyIds {
  if (names === undefined) return { clause: "", parameters: [] };
  return {
    clause: " AND ARRAY_CONTAINS(@only, c.id)",
    parameters: [{ name: "@only", value: [...new Set(names.map(idOf))] }],
  };
}
