import type { SqliteDatabase, SqliteStatement } from "./sqlite/index.js";
import type { MemoryRecord } from "../../model/record.js";
import type { Subject } from "../../model/subject.js";
import { decodeRecord, encodeRecord, type IndexedColumns } from "../codec.js";
import { readable } from "../record-filter.js";
import { RecordExistsError, RevisionConflictError, TargetsGoneError, TargetsSupersededError } from "../store-errors.js";
import type { ImportRow } from "../store.js";
import type { StoreHandle } from "./handle.js";
import type { Mirror } from "./mirror.js";
import { MIRRORED_COLUMNS } from "./sqlite-schema.js";

type UpdateColumn = "short_id" | Exclude<(typeof MIRRORED_COLUMNS)[number], "id"> | "schema_version" | "payload";

/** Every column writeRecord sets besides the id, in binding order: the short id, every mirrored column, the version and the payload. */
const UPDATE_COLUMNS: readonly UpdateColumn[] = [
  "short_id",
  ...MIRRORED_COLUMNS.filter((c): c is Exclude<(typeof MIRRORED_COLUMNS)[number], "id"> => c !== "id"),
  "schema_version",
  "payload",
] satisfies readonly (keyof IndexedColumns)[];

/** A row's indexed columns as stored, for an update that may leave unchanged ones (and their index) alone. */
export type StoredIndexed = { short_id: string | null; schema_version: number | null; rid?: number };

/**
 * How writeRecord treats a row already at the record's id (see there).
 * `quiet` (with `stored` only): the caller has checked that the write keeps
 * every mirrored column, the content and the tags, so the UPDATE sets only
 * short_id, schema_version and payload and fires no trigger.
 */
export type WriteMode = "upsert" | "insert" | "update" | { stored: StoredIndexed; quiet?: boolean } | { expect: string | null };

/** What a quiet write sets, besides the id it finds the row by. */
type QuietColumns = Pick<IndexedColumns, "id" | "short_id" | "schema_version" | "payload">;

/**
 * A row the codec has already encoded (a migration preflight does it ahead
 * of the pass that writes it). A quiet write needs only the columns it sets,
 * so that is all a preflight keeps of it.
 */
export class PreEncoded {
  constructor(
    readonly columns: IndexedColumns | QuietColumns,
    readonly full: boolean,
  ) {}
}

/**
 * Every write of a record row, through the codec: the one place the
 * records table is written (test/write-path-gate.test.ts holds the source
 * to that), and the Store's writes built on it. Each write is one SQLite
 * statement or one IMMEDIATE transaction, and refreshes the mirror after.
 */
export class RecordWrites {
  constructor(
    private readonly h: StoreHandle,
    private readonly m: Mirror,
  ) {}

  create(record: MemoryRecord, vector: Float32Array): boolean {
    const created = this.writeRecord(record, vector, undefined, "insert");
    this.m.afterWrite();
    return created;
  }

  replace(record: MemoryRecord, vector?: Float32Array): void {
    // One statement: SQLite checks the revision and writes under its own lock,
    // so a second connection cannot write between the check and the write.
    const written = this.writeRecord(record, vector, undefined, { expect: record.revision ?? null });
    this.m.afterWrite();
    if (!written) throw new RevisionConflictError(record.id, this.h.stmt("SELECT 1 FROM records WHERE id = ?").get(record.id) === undefined);
  }

  /**
   * The one place a record row is written; the codec stamps the version and
   * a fresh revision (an import keeps the one it carries). "update" never
   * inserts, so a migration cannot resurrect a record deleted while it ran;
   * it reports whether a row was there. "insert" never overwrites: it
   * reports whether the id was free. `{ expect }` updates only while the
   * stored revision is that one (null: a record written before revisions).
   * An update that is told the row's indexed columns as they are now
   * (`{ stored }`) leaves an index alone when its column keeps its value:
   * naming a column in SET rewrites its index entry anyway, which for a
   * sweep or an access flush is an extra page write per record. The vector,
   * when given, goes to its own table, so a write without one never touches it.
   */
  writeRecord(
    record: MemoryRecord | PreEncoded,
    vector?: Float32Array,
    version?: number | null,
    mode: WriteMode = "upsert",
    revision: "fresh" | "carried" = "fresh",
  ): boolean {
    if (record instanceof PreEncoded && !record.full && !(typeof mode === "object" && "stored" in mode && mode.quiet === true)) {
      throw new Error("a partial encoding can only be written quietly");
    }
    const c = (
      record instanceof PreEncoded ? record.columns : version === undefined ? encodeRecord(record, undefined, revision) : encodeRecord(record, version, revision)
    ) as IndexedColumns;
    if (mode === "update" || (typeof mode === "object" && "stored" in mode)) {
      const stored = typeof mode === "object" ? mode.stored : undefined;
      const keepShort = stored !== undefined && stored.short_id === c.short_id;
      const keepVersion = stored !== undefined && stored.schema_version === c.schema_version;
      // A caller that read the row in this transaction names its rid: the
      // primary key finds it without a walk of the id index.
      const byRid = stored?.rid !== undefined;
      const quiet = typeof mode === "object" && mode.quiet === true;
      const variant = (keepShort ? 1 : 0) | (keepVersion ? 2 : 0) | (byRid ? 4 : 0) | (quiet ? 8 : 0);
      let update = this.updates[variant];
      if (!update) {
        const cols = UPDATE_COLUMNS.filter(
          (k) =>
            !(keepShort && k === "short_id") && !(keepVersion && k === "schema_version") && !(quiet && (MIRRORED_COLUMNS as readonly string[]).includes(k)),
        );
        update = this.updates[variant] = {
          cols,
          st: this.h.db.prepare(`UPDATE records SET ${cols.map((k) => `${k} = ?`).join(", ")} WHERE ${byRid ? "rid = ? AND " : ""}id = ?`),
        };
      }
      const args: unknown[] = [];
      for (const k of update.cols) args.push(c[k]);
      if (byRid) args.push(stored!.rid);
      args.push(c.id);
      const found = update.st.run(args).changes > 0;
      // A quiet write leaves no change-log row for sync() to drop the text by.
      if (found && quiet) {
        const rid = stored?.rid ?? this.m.ridById.get(c.id);
        if (rid !== undefined) {
          this.m.payloads.delete(rid);
          this.m.searched.delete(rid);
        }
      }
      if (found && vector) this.writeVector(c.id, vector);
      return found;
    }
    if (typeof mode === "object") {
      // Compare-and-swap in one statement: the revision check and the write
      // happen under SQLite's lock, so no other connection slips in between.
      const cas = this.h.stmt(
        `UPDATE records SET ${UPDATE_COLUMNS.map((k) => `${k} = ?`).join(", ")}
         WHERE id = ? AND json_extract(payload, '$.revision') IS ?`,
      );
      const landed = cas.run(...UPDATE_COLUMNS.map((k) => c[k]), c.id, mode.expect).changes > 0;
      if (landed && vector) this.writeVector(c.id, vector);
      return landed;
    }
    const onConflict = mode === "insert" ? "DO NOTHING" : `DO UPDATE SET ${UPDATE_COLUMNS.map((k) => `${k} = excluded.${k}`).join(", ")}`;
    const write = this.h.stmt(
      `INSERT INTO records (id, ${UPDATE_COLUMNS.join(", ")}) VALUES (?, ${UPDATE_COLUMNS.map(() => "?").join(", ")})
       ON CONFLICT(id) ${onConflict}`,
    );
    const written = write.run(c.id, ...UPDATE_COLUMNS.map((k) => c[k])).changes > 0;
    if (written && vector) this.writeVector(c.id, vector);
    return written;
  }

  /** writeRecord's UPDATE statements, by which indexed columns they leave alone and how they find the row. */
  private readonly updates: ({ cols: readonly (typeof UPDATE_COLUMNS)[number][]; st: SqliteStatement } | undefined)[] = [];

  /** Part of writeRecord: the vector of the record row just written. */
  private writeVector(id: string, vector: Float32Array): void {
    this.h.stmt(
      `INSERT INTO vectors (rid, vector) SELECT rid, ? FROM records WHERE id = ?
       ON CONFLICT(rid) DO UPDATE SET vector = excluded.vector`,
    ).run(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), id);
  }

  /** Runs fn in one SQLite transaction and refreshes the mirror afterwards. */
  transaction<T>(fn: () => T): T {
    try {
      // IMMEDIATE takes the write lock up front, so a writer racing another
      // connection waits out busy_timeout instead of failing with SQLITE_BUSY.
      return this.h.db.transaction(fn).immediate();
    } finally {
      this.m.afterWrite();
    }
  }

  importBatch(rows: readonly ImportRow[]): void {
    // One IMMEDIATE transaction: a batch that fails part-way leaves nothing behind.
    this.transaction(() => {
      for (const r of rows) this.writeRecord(r.record, r.vector, r.version, "upsert", "carried");
    });
  }

  supersede(record: MemoryRecord, vector: Float32Array, targetIds: readonly string[], subject: Subject): void {
    const run = this.h.db.transaction(() => {
      const targets = targetIds.map((id) => {
        const row = this.h.db.prepare("SELECT owner, payload FROM records WHERE id = ?").get(id) as
          | { owner: string | null; payload: string }
          | undefined;
        const ownedBy = subject.anonymous ? "" : subject.owner;
        if (!row || row.owner === null || row.owner !== ownedBy) throw new TargetsGoneError("target gone");
        return decodeRecord(row.payload);
      });
      const taken = targets.filter((t) => t.superseded_by).map((t) => t.id);
      if (taken.length > 0) throw new TargetsSupersededError(taken);
      // Insert-only: a keyed supersede never overwrites the record its key already made.
      if (!this.writeRecord(record, vector, undefined, "insert")) throw new RecordExistsError(record.id);
      for (const t of targets) this.writeRecord({ ...t, superseded_by: record.id });
    });
    try {
      // IMMEDIATE takes the write lock before the re-check, so a second
      // process cannot slip a supersede of the same head in between.
      run.immediate();
    } finally {
      this.m.afterWrite();
    }
  }

  delete(id: string): boolean {
    const info = this.h.db.prepare("DELETE FROM records WHERE id = ?").run(id);
    this.m.afterWrite();
    return info.changes > 0;
  }

  /** Operator sweeps: these records, whoever owns them, in one IMMEDIATE transaction; how many existed. */
  deleteMany(ids: readonly string[]): number {
    if (ids.length === 0) return 0;
    const del = this.h.stmt("DELETE FROM records WHERE id = ?");
    let gone = 0;
    try {
      this.h.db.transaction(() => {
        for (const id of ids) gone += del.run(id).changes;
      }).immediate();
    } finally {
      this.m.afterWrite();
    }
    return gone;
  }

  deleteOwnedInScope(scope: string, subject: Subject): number {
    this.m.sync();
    const ids = [...(this.m.ridsByScope.get(scope) ?? [])]
      .map((rid) => this.m.attrs.get(rid)!)
      .filter((a) => readable(a, { subject, ownerOnly: true }))
      .map((a) => a.id);
    const del = this.h.db.prepare("DELETE FROM records WHERE id = ?");
    this.h.db.transaction(() => ids.forEach((id) => del.run(id))).immediate();
    this.m.afterWrite();
    return ids.length;
  }
}
