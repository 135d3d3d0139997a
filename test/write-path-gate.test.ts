import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every record write stamps schema_version through the codec. This gate
 * reads the source: a statement writing the records table may appear only
 * inside RecordWrites.writeRecord (the embedded store's record writer),
 * which always calls encodeRecord.
 */
const ROOT = new URL("..", import.meta.url).pathname;
const WRITE = /\b(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE|REPLACE\s+INTO)\s+records\b(?!_)/gi;

type Finding = { file: string; fn: string };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** The name of the method or function enclosing a character offset (nearest preceding declaration). */
function enclosing(text: string, at: number): string {
  const head = text.slice(0, at);
  const decl = /(?:^|\n)\s*(?:export\s+)?(?:async\s+)?(?:function\s+)?(?:private\s+|static\s+|public\s+)*([A-Za-z_]\w*)\s*(?:<[^>]*>)?\([^)]*\)[^{;]*\{/g;
  let name = "<top level>";
  for (const m of head.matchAll(decl)) if (!["if", "for", "while", "switch", "catch"].includes(m[1]!)) name = m[1]!;
  return name;
}

export function findWrites(files: { file: string; text: string }[]): Finding[] {
  const out: Finding[] = [];
  for (const { file, text } of files) for (const m of text.matchAll(WRITE)) out.push({ file, fn: enclosing(text, m.index!) });
  return out;
}

describe("no write path bypasses the record codec", () => {
  it("the detector finds a hand-written write outside writeRecord (it can fail)", () => {
    const fixture = `class S {\n  sneaky(id: string) {\n    this.db.prepare("UPDATE records SET payload = ? WHERE id = ?").run("{}", id);\n  }\n}`;
    expect(findWrites([{ file: "fixture.ts", text: fixture }])).toEqual([{ file: "fixture.ts", fn: "sneaky" }]);
    expect(findWrites([{ file: "f.ts", text: "const t = 'records_fts'; INSERT INTO records_fts" }])).toEqual([]);
  });

  it("only RecordWrites.writeRecord writes the records table, and it encodes through the codec", () => {
    const files = sources(join(ROOT, "src")).map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, "utf8") }));
    const writes = findWrites(files);
    expect(writes.length).toBeGreaterThan(0);
    expect([...new Set(writes.map((w) => `${w.file}#${w.fn}`))]).toEqual(["src/store/embedded/record-writes.ts#writeRecord"]);
    const store = files.find((f) => f.file === "src/store/embedded/record-writes.ts")!.text;
    const body = store.slice(store.indexOf("  writeRecord("), store.indexOf("  /** Runs fn in one SQLite transaction"));
    expect(body).toMatch(/encodeRecord\(record[,)]/);
    // And the codec is the only place that sets schema_version on a payload.
    const stampers = files.filter((f) => /\.schema_version\s*=(?!=)/.test(f.text)).map((f) => f.file);
    expect(stampers).toEqual(["src/store/codec.ts"]);
  });
});
