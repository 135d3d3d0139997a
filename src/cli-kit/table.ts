import { oneLine } from "./failure.js";

/** The text tables of both halves of the command line: what a verb prints without --output json. */

function width(s: string): number {
  return Array.from(s).length;
}

export function pad(s: string, n: number): string {
  return s + " ".repeat(Math.max(0, n - width(s)));
}

/**
 * Columns separated by two spaces; the last column is not padded. A cell is
 * written on its line, control characters as their escapes, so no text a
 * caller sent (an id to archive, say) can split a row.
 */
export function table(header: readonly string[], cellsOf: readonly (readonly string[])[]): string {
  const rows = cellsOf.map((r) => r.map(oneLine));
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
