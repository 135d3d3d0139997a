import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite, type SqliteDatabase } from "../src/store/embedded/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { ANONYMOUS } from "../src/core/index.js";
import { encodeRecord } from "../src/store/codec.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { GATE_ON } from "../src/store/store.js";
import { captureLog } from "./helpers/capture-log.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { VECTOR_COLUMN_LAYOUT_SQL } from "./fixtures/vector-column-layout.js";
import { seededVector } from "./helpers/synthetic-vectors.js";

const DIM = 16;
const N = 300;
/** Older files could hold a record without a vector; this one has none. */
const NO_VECTOR = 7;
const query = { subject: ANONYMOUS, gate: GATE_ON, now: 2_000_000_000 };
const dirs: string[] = [];

afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), "engram-layout-"));
  dirs.push(d);
  return d;
}

const vec = (i: number): Float32Array => seededVector(i, DIM);

const rec = (i: number) => syntheticRecord(i, { short_id: `L${String(i).padStart(9, "0")}`, content: `layout note ${i} word${i % 11}` });

/** An engram.db as a binary from before the vectors table left it. */
function writeOldLayout(dir: string): void {
  const db = openSqlite(join(dir, "engram.db"));
  db.pragma("journal_mode = WAL");
  db.exec(VECTOR_COLUMN_LAYOUT_SQL);
  const insert = db.prepare(`INSERT INTO records (id, short_id, owner, scope, visibility, category, kind, created_at, not_before,
    not_after, superseded_by, archived_at, schema_version, payload, vector)
    VALUES (@id, @short_id, @owner, @scope, @visibility, @category, @kind, @created_at, @not_before, @not_after,
    @superseded_by, @archived_at, @schema_version, @payload, @vector)`);
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const v = vec(i);
      insert.run({ ...encodeRecord(rec(i)), vector: i === NO_VECTOR ? null : Buffer.from(v.buffer, v.byteOffset, v.byteLength) });
    }
  })();
  db.close();
}

function columnsOf(db: SqliteDatabase): string[] {
  return (db.prepare("SELECT name FROM pragma_table_info('records')").all() as { name: string }[]).map((c) => c.name);
}

async function searchIds(store: EmbeddedStore, i: number, text: string) {
  return (await store.search(query, vec(i), text, 8)).map((h) => ({ id: h.record.id, score: h.score.toFixed(6) }));
}

describe("a store file in the layout with vectors inside the records table", () => {
  it("opens, moves every vector to its own table once, logs the counts, and searches like a file written fresh", async () => {
    const old = dataDir();
    writeOldLayout(old);
    const fresh = EmbeddedStore.open({ dataDir: dataDir(), dim: DIM });
    fresh.transaction(() => {
      for (let i = 0; i < N; i++) fresh.writeRecord(rec(i), i === NO_VECTOR ? undefined : vec(i));
    });

    const log = captureLog();
    const upgraded = EmbeddedStore.open({ dataDir: old, dim: DIM, log });
    expect(log.lines.map((l) => JSON.parse(l) as { msg: string })).toEqual([
      expect.objectContaining({ msg: `storage layout upgraded: ${N - 1} vectors of ${N} records moved to their own table`, records: N, vectors: N - 1 }),
      expect.objectContaining({ msg: "storage layout upgraded: words are indexed as stemmed terms; the term index is built in the background" }),
    ]);
    expect(columnsOf(upgraded.database)).not.toContain("vector");
    expect(upgraded.readiness()).toContain("terms");
    await upgraded.warm();
    expect(upgraded.readiness()).not.toContain("terms");
    expect(log.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain(`term index ready: ${N}/${N} records`);

    // Every write stamps its own revision, so the two files agree on everything else.
    const rows = (s: EmbeddedStore) => s.database.prepare("SELECT rid, id, json_remove(payload, '$.revision') AS payload FROM records ORDER BY rid").all();
    expect(rows(upgraded)).toEqual(rows(fresh));
    for (let i = 0; i < N; i++) {
      const v = await upgraded.vectorOf(rec(i).id);
      if (i === NO_VECTOR) expect(v).toBeUndefined();
      else expect(v).toEqual(vec(i));
    }
    for (const [i, text] of [[3, ""], [150, "word4"], [299, "layout note 12"]] as const) {
      expect(await searchIds(upgraded, i, text)).toEqual(await searchIds(fresh, i, text));
    }
    expect((await searchIds(upgraded, 42, ""))[0]!.id).toBe(rec(42).id);

    // Writes after the upgrade reach the index and the vectors table through the new triggers.
    await upgraded.create(rec(1000), vec(1000));
    expect((await searchIds(upgraded, 1000, ""))[0]!.id).toBe(rec(1000).id);
    await upgraded.delete(rec(42).id);
    expect((await searchIds(upgraded, 42, "")).map((h) => h.id)).not.toContain(rec(42).id);
    expect(upgraded.database.prepare("SELECT count(*) AS n FROM vectors").get()).toEqual({ n: N - 1 });
    await upgraded.close();
    await fresh.close();

    const again = captureLog();
    const reopened = EmbeddedStore.open({ dataDir: old, dim: DIM, log: again });
    expect(again.lines.filter((l) => l.includes("storage layout"))).toEqual([]);
    expect(await reopened.vectorOf(rec(1000).id)).toEqual(vec(1000));
    await reopened.close();
  });

  it("an upgrade that fails part-way leaves the old layout whole: every vector still in its column, the old trigger in place", () => {
    const old = dataDir();
    writeOldLayout(old);
    // A table in the way makes the copy fail after the old trigger was dropped.
    const db = openSqlite(join(old, "engram.db"));
    db.exec("CREATE TABLE vectors (x)");
    db.close();

    expect(() => EmbeddedStore.open({ dataDir: old, dim: DIM })).toThrow();

    const after = openSqlite(join(old, "engram.db"));
    expect(columnsOf(after)).toContain("vector");
    expect(after.prepare("SELECT count(*) AS n FROM records WHERE vector IS NOT NULL").get()).toEqual({ n: N - 1 });
    const blob = (after.prepare("SELECT vector FROM records WHERE id = ?").get(rec(5).id) as { vector: Buffer }).vector;
    expect(new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength))).toEqual(vec(5));
    expect(after.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name = 'records_au'").get()).toEqual({ n: 1 });
    after.close();
  });
});

/** The update triggers as binaries wrote them before they named their columns: they fired on every UPDATE. */
const UNCONDITIONAL_UPDATE_TRIGGERS = `
DROP TRIGGER records_au; DROP TRIGGER records_au_terms;
CREATE TRIGGER records_au AFTER UPDATE ON records BEGIN
  INSERT INTO change_log (rid, vec) VALUES (new.rid, 0);
END;
CREATE TRIGGER records_au_terms AFTER UPDATE ON records
WHEN json_extract(old.payload, '$.content') IS NOT json_extract(new.payload, '$.content') BEGIN
  DELETE FROM records_terms WHERE rowid = old.rid;
  INSERT INTO records_terms (rowid, body) VALUES (new.rid, engram_terms(json_extract(new.payload, '$.content'), '', ''));
END;`;

describe("a store file whose update triggers fire on every UPDATE", () => {
  it("gets the column-naming triggers once at open, and ordinary writes after it are still logged and indexed", async () => {
    const dir = dataDir();
    const seeded = EmbeddedStore.open({ dataDir: dir, dim: DIM });
    seeded.transaction(() => {
      for (let i = 0; i < 20; i++) seeded.writeRecord(rec(i), vec(i));
    });
    await seeded.close();
    const db = openSqlite(join(dir, "engram.db"));
    db.exec(UNCONDITIONAL_UPDATE_TRIGGERS);
    db.close();

    const log = captureLog();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM, log });
    expect(log.lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(["storage layout upgraded: the update triggers fire on the mirrored columns only"]);
    const triggers = store.database.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ('records_au', 'records_au_terms') ORDER BY name").all() as { name: string; sql: string }[];
    expect(triggers.map((t) => t.name)).toEqual(["records_au", "records_au_terms"]);
    for (const t of triggers) expect(t.sql).toMatch(/AFTER UPDATE OF id, owner, scope/);

    const logged = () => (store.database.prepare("SELECT count(*) AS n FROM change_log").get() as { n: number }).n;
    const before = logged();
    const stored = (await store.getRaw(rec(3).id))!;
    await store.replace({ ...stored, content: "a word nobody wrote before: zyzzyva" });
    expect(logged()).toBe(before + 1);
    expect(store.database.prepare("SELECT rowid FROM records_terms WHERE records_terms MATCH 'zyzzyva'").all()).toHaveLength(1);
    await store.close();

    const again = captureLog();
    const reopened = EmbeddedStore.open({ dataDir: dir, dim: DIM, log: again });
    expect(again.lines.filter((l) => l.includes("storage layout"))).toEqual([]);
    await reopened.close();
  });
});
