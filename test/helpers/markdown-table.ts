/**
 * A small markdown table reader for the tests that bind a doc's tables to
 * the source. It is strict on purpose: a missing heading, a missing table or
 * an unexpected header row is an error, not an empty list.
 */
export type Table = { header: string[]; rows: string[][] };

/** Splits one `| a | b |` row on unescaped pipes; `\|` inside a cell is kept as `|`. */
export function splitRow(line: string): string[] {
  const inner = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  const cells: string[] = [];
  let cur = "";
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch === "\\" && inner[i + 1] === "|") {
      cur += "|";
      i++;
    } else if (ch === "|") {
      cells.push(cur.trim());
      cur = "";
    } else {
      cur += ch;
    }
  }
  cells.push(cur.trim());
  return cells;
}

/** The text under an exact `## …` heading, up to the next heading of level 1 or 2. */
export function sectionOf(md: string, heading: string): string {
  const lines = md.split("\n");
  const start = lines.findIndex((l) => l.trimEnd() === heading);
  if (start < 0) throw new Error(`heading not found: ${heading}`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^#{1,2} /.test(l));
  return (end < 0 ? rest : rest.slice(0, end)).join("\n");
}

/** The first pipe table in a block of markdown. */
export function firstTable(block: string): Table {
  const lines = block.split("\n");
  const start = lines.findIndex((l) => l.trimStart().startsWith("|"));
  if (start < 0) throw new Error("no table found");
  const tableLines: string[] = [];
  for (const l of lines.slice(start)) {
    if (!l.trimStart().startsWith("|")) break;
    tableLines.push(l);
  }
  const [headerLine, sepLine, ...body] = tableLines;
  if (headerLine === undefined || sepLine === undefined || !/^\|[\s:|-]+\|$/.test(sepLine.trim())) {
    throw new Error("malformed table: header or separator row missing");
  }
  const header = splitRow(headerLine);
  const rows = body.map(splitRow);
  for (const r of rows) {
    if (r.length !== header.length) throw new Error(`row has ${r.length} cells, header has ${header.length}: ${r.join(" | ")}`);
  }
  return { header, rows };
}

/** The table under `heading`, whose header must be exactly `expectedHeader`. */
export function tableUnder(md: string, heading: string, expectedHeader: string): Table {
  const table = firstTable(sectionOf(md, heading));
  const want = splitRow(expectedHeader);
  if (table.header.join("|") !== want.join("|")) {
    throw new Error(`unexpected header under ${heading}: ${table.header.join(" | ")}`);
  }
  return table;
}

/** A cell that must hold exactly one backticked token, e.g. `` `too_long` ``. */
export function codeCell(cell: string): string {
  const m = /^`([^`]+)`$/.exec(cell);
  if (!m) throw new Error(`expected a single code span, got: ${cell}`);
  return m[1]!;
}

/** Every backticked token in a cell, in order. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

export type SetDiff = { missing: string[]; extra: string[]; duplicated: string[] };

/** What the doc lacks (missing), what it has that the source lacks (extra), and repeats. */
export function diffKeys(doc: readonly string[], source: readonly string[]): SetDiff {
  const docSet = new Set(doc);
  const srcSet = new Set(source);
  return {
    missing: source.filter((k) => !docSet.has(k)),
    extra: doc.filter((k) => !srcSet.has(k)),
    duplicated: doc.filter((k, i) => doc.indexOf(k) !== i),
  };
}

export const NO_DIFF: SetDiff = { missing: [], extra: [], duplicated: [] };
