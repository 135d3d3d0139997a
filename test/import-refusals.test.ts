/**
 * Which failures of `engram import` are a line's and which are not. A line's
 * own content (not JSON, a field missing, of the wrong type or outside the
 * core's closed set) is exit 2 and names that line; a store another process
 * holds locked or an embedder out of reach is nobody's line: exit 5, in the
 * words the other operator verbs use. A file refused in its header or first
 * batch creates nothing, not even the store an import may make.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../src/store/embedded/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { FakeEmbedder, identityKey, LOCAL_IDENTITY } from "../src/embed/index.js";
import type { MemoryRecord } from "../src/model/record.js";
import { headerLine, importRecords, ImportStopped, parseRecordLine, recordLine } from "../src/operator/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { CLI_DOCS } from "./helpers/doc-pages.js";
import { runEngram } from "./helpers/run-engram.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

/** Planted as a field's value; no refusal may repeat it. */
const SECRET = "sekrit-import-3c9e";
const LOCAL = identityKey(LOCAL_IDENTITY);
const DOC = CLI_DOCS;

const root = mkdtempSync(join(tmpdir(), "engram-import-refusals-"));
let n = 0;
const fresh = (name: string) => join(root, `${name}-${++n}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const vector = () => Buffer.from(new Float32Array(LOCAL_IDENTITY.dim).fill(0.05).buffer);
const header = headerLine({ embedder: LOCAL, vectors: true });
/** A record line as an export writes it; `edit` may remove or retype any field. */
function line(i: number, edit: (r: Record<string, unknown>) => void = () => {}): string {
  const r = syntheticRecord(i, { short_id: `REFUSE${String(i).padStart(4, "0")}`, schema_version: 2 }) as unknown as Record<string, unknown>;
  edit(r);
  return recordLine(r as unknown as MemoryRecord, vector());
}
function file(lines: readonly string[]): string {
  const f = `${fresh("file")}.jsonl`;
  writeFileSync(f, lines.join("\n") + "\n");
  return f;
}
function ids(dataDir: string): string[] {
  const db = openSqlite(join(dataDir, "engram.db"), { readonly: true });
  try {
    return (db.prepare("SELECT id FROM records ORDER BY id").all() as { id: string }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}
const uuid = (i: number) => syntheticRecord(i).id;

describe("a file refused before anything is written creates nothing", { timeout: 60_000 }, () => {
  it("a file that is not an export: line 1 named, exit 2, and no data directory or store made", async () => {
    const dataDir = join(fresh("data"), "x");
    const run = await runEngram(["import", file(["garbage"])], { ENGRAM_DATA_DIR: dataDir });
    expect(run).toEqual({ code: EXIT.usage, stdout: "", stderr: "engram: line 1: not valid JSON; nothing from its batch on was written (0 record(s) imported before it)\n" });
    expect(existsSync(dataDir)).toBe(false);
  });

  it("a bad line in the first batch: named by its own line, and still no store", async () => {
    const dataDir = fresh("data");
    const run = await runEngram(["import", file([header, line(1), line(2), line(3, (r) => delete r.category)])], { ENGRAM_DATA_DIR: dataDir });
    expect(run).toEqual({
      code: EXIT.usage,
      stdout: "",
      stderr: "engram: line 4: record.category is required; nothing from its batch on was written (0 record(s) imported before it)\n",
    });
    expect(existsSync(dataDir)).toBe(false);
  });

  it("stdin is read once: the lines checked before the store opens are the ones imported", async () => {
    const dataDir = fresh("data");
    const run = spawnSync(process.execPath, ["bin/engram.js", "import", "-", "--batch-size", "1", "--output", "json"], {
      cwd: new URL("..", import.meta.url).pathname,
      input: [header, line(1), line(2), line(3)].join("\n") + "\n",
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ENGRAM_DATA_DIR: dataDir },
    });
    expect({ code: run.status, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(run.stdout)).toMatchObject({ imported: 3, batches: 3 });
    expect(ids(dataDir)).toEqual([uuid(1), uuid(2), uuid(3)]);
  });
});

describe("each field a stored record carries is checked on its own line", () => {
  const cases: [string, (r: Record<string, unknown>) => void, string][] = [
    ["no category", (r) => delete r.category, "record.category is required"],
    ["a number for category", (r) => (r.category = 5), "record.category must be one of decision|preference|convention|gotcha|rule|discovery"],
    ["an unknown category", (r) => (r.category = SECRET), "record.category must be one of decision|preference|convention|gotcha|rule|discovery"],
    ["no source", (r) => delete r.source, "record.source is required"],
    ["an unknown source", (r) => (r.source = SECRET), "record.source must be one of user-said|agent-inferred"],
    ["no visibility", (r) => delete r.visibility, "record.visibility is required"],
    ["an unknown visibility", (r) => (r.visibility = SECRET), 'record.visibility must be one of ""|shared'],
    ["no content", (r) => delete r.content, "record.content is required"],
    ["a list for content", (r) => (r.content = [SECRET]), "record.content must be a string"],
    ["a number for created_at", (r) => (r.created_at = 5), "record.created_at must be a string"],
    // A blank time would sort before every record and age past any purge window.
    ["a blank created_at", (r) => (r.created_at = " "), "record.created_at is required"],
    ["a created_at that is not RFC3339", (r) => (r.created_at = SECRET), "record.created_at must be RFC3339"],
    ["an archived_at that is not RFC3339", (r) => (r.archived_at = " "), "record.archived_at must be RFC3339"],
    ["a blank scope", (r) => (r.scope = " "), "record.scope is required"],
    ["a number for repo", (r) => (r.repo = 5), "record.repo must be a string"],
    ["a number among the tags", (r) => (r.tags = [SECRET, 5]), "record.tags must be strings"],
    ["a string among the citations", (r) => (r.citations = [SECRET]), "record.citations must be citation objects of strings"],
    ["a negative access_count", (r) => (r.access_count = -1), "record.access_count must be a non-negative integer"],
  ];
  it.each(cases)("%s: refused as that line, without its value", (_label, edit, reason) => {
    const err = (() => {
      try {
        parseRecordLine(line(7, edit), 9);
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(err?.message).toBe(`line 9: ${reason}`);
    expect(err?.message).not.toContain(SECRET);
  });

  it("the stored record's own fields pass: rule, discovery, shared, a pre-isolation record without owner", () => {
    for (const edit of [(r: Record<string, unknown>) => (r.category = "rule"), (r: Record<string, unknown>) => (r.category = "discovery"), (r: Record<string, unknown>) => (r.visibility = "shared"), (r: Record<string, unknown>) => delete r.owner]) {
      expect(parseRecordLine(line(7, edit), 2).record.id).toBe(uuid(7));
    }
  });

  it("a line the store would refuse is named as itself, not as its batch's first line", async () => {
    const target = EmbeddedStore.open({ dataDir: fresh("data"), dim: 64 });
    async function* lines() {
      yield* [headerLine({ embedder: "", vectors: false }), line(1), line(2), line(3, (r) => delete r.category)];
    }
    const err = (await importRecords(target, new FakeEmbedder(64), lines(), { batch: 10 }).catch((e: unknown) => e)) as ImportStopped;
    expect(err).toBeInstanceOf(ImportStopped);
    expect(err.message).toBe("line 4: record.category is required");
    expect(await target.getRaw(uuid(1))).toBeUndefined();
    await target.close();
  });

  it("engram import names the line, exit 2, and keeps only the batches before it", { timeout: 60_000 }, async () => {
    const dataDir = fresh("data");
    const run = await runEngram(["import", file([header, line(1), line(2), line(3, (r) => (r.category = 5))]), "--batch-size", "2"], { ENGRAM_DATA_DIR: dataDir });
    expect(run).toEqual({
      code: EXIT.usage,
      stdout: "",
      stderr: "engram: line 4: record.category must be one of decision|preference|convention|gotcha|rule|discovery; nothing from its batch on was written (2 record(s) imported before it)\n",
    });
    expect(ids(dataDir)).toEqual([uuid(1), uuid(2)]);
  });
});

describe("a failure that is no line's fault keeps its own exit status", { timeout: 60_000 }, () => {
  it("a store another process holds locked is exit 5, says so, and blames no line", async () => {
    const dataDir = fresh("data");
    const first = await runEngram(["import", file([header, line(1)])], { ENGRAM_DATA_DIR: dataDir });
    expect(first.code, first.stderr).toBe(EXIT.ok);
    const holder = openSqlite(join(dataDir, "engram.db"));
    holder.exec("BEGIN IMMEDIATE");
    let run;
    try {
      run = await runEngram(["import", file([header, line(2), line(3)])], { ENGRAM_DATA_DIR: dataDir });
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
    expect(run).toEqual({
      code: EXIT.unavailable,
      stdout: "",
      stderr: "engram: the store is locked by another process: database is locked; nothing from line 2 on was written (0 record(s) imported before it)\n",
    });
    expect(ids(dataDir)).toEqual([uuid(1)]);
    expect(DOC).toContain("`engram: the store is locked by another process: database is locked; nothing from line 2 on was written (0 record(s) imported before it)`");
  });

  it("an embedder that cannot be reached is exit 5, naming the embedder and no line", async () => {
    const dataDir = fresh("data");
    const env = { ENGRAM_DATA_DIR: dataDir, ENGRAM_OPENAI_BASE_URL: "http://127.0.0.1:1", ENGRAM_EMBED_MODEL: "m", ENGRAM_EMBED_DIM: "8" };
    const run = await runEngram(["import", file([header, line(1)])], env);
    expect(run).toEqual({
      code: EXIT.unavailable,
      stdout: "",
      stderr:
        "engram: openai-compatible embedder: POST http://127.0.0.1:1/v1/embeddings could not be reached; nothing from line 2 on was written (0 record(s) imported before it)\n",
    });
  });
});
