/** How `twin` shows answers to people: aligned tables, and flattened fields for one resource. */

/** Columns aligned on the widest cell, a header in capitals. */
export function table(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...rows.map((row) => (row[index] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((column) => column.toUpperCase())), ...rows.map(line)].join("\n");
}

function leaves(value: unknown, prefix: string, into: [string, string][]): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix !== "") into.push([prefix, "{}"]);
    for (const [key, inner] of entries) leaves(inner, prefix === "" ? key : `${prefix}.${key}`, into);
    return;
  }
  into.push([prefix, cell(value)]);
}

/** A value as one cell. */
export function cell(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** One resource as `field  value` lines, nested fields dotted (systemData.createdBy). */
export function fields(value: unknown): string {
  const rows: [string, string][] = [];
  leaves(value, "", rows);
  const width = Math.max(0, ...rows.map(([name]) => name.length));
  return rows.map(([name, text]) => `${name.padEnd(width)}  ${text}`.trimEnd()).join("\n");
}

/** A long text cut to `max` characters, with an ellipsis. */
export function shorten(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
