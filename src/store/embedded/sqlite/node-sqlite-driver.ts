import { existsSync } from "node:fs";
import { resultCodeName } from "./result-codes.js";
import type { BackupProgress, SqliteDatabase, SqliteOpenOptions, SqliteRunResult, SqliteStatement, SqliteTransaction, SqliteValue } from "./sqlite-types.js";

/** The members of node:sqlite this driver calls (typed here: the project's Node types are Node 20's). */
type NativeStatement = {
  run(...p: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...p: unknown[]): unknown;
  all(...p: unknown[]): unknown[];
  iterate(...p: unknown[]): IterableIterator<unknown>;
  setReturnArrays(on: boolean): void;
  setAllowUnknownNamedParameters(on: boolean): void;
};
type NativeDatabase = {
  prepare(sql: string): NativeStatement;
  exec(sql: string): void;
  function(name: string, opts: { deterministic: boolean }, fn: (...a: SqliteValue[]) => SqliteValue): void;
  close(): void;
  readonly isTransaction: boolean;
};
export type NodeSqliteModule = {
  DatabaseSync: new (path: string, opts: { readOnly: boolean }) => NativeDatabase;
  backup(db: NativeDatabase, path: string, opts: { rate: number; progress: (p: BackupProgress) => void }): Promise<number>;
};

/** Pages copied per backup step: a writer waits at most one step. */
const BACKUP_PAGES_PER_STEP = 256;

/**
 * node:sqlite reports a SQLite failure as ERR_SQLITE_ERROR with the number
 * in `errcode`; the store reads the name in `code`, as better-sqlite3 sets it.
 */
function named(err: unknown): unknown {
  const e = err as { code?: unknown; errcode?: unknown } | null;
  if (e && e.code === "ERR_SQLITE_ERROR" && typeof e.errcode === "number") e.code = resultCodeName(e.errcode);
  return err;
}

function guarded<T>(call: () => T): T {
  try {
    return call();
  } catch (err) {
    throw named(err);
  }
}

/** better-sqlite3 binds the elements of an array argument one by one; node:sqlite would take the array for named parameters. */
function spread(params: unknown[]): unknown[] {
  for (const p of params) if (Array.isArray(p)) return params.flat();
  return params;
}

type Mode = "object" | "raw" | "pluck";

class NodeStatement implements SqliteStatement {
  private mode: Mode = "object";
  constructor(private readonly st: NativeStatement) {
    // better-sqlite3 ignores named parameters a statement does not use; keep that.
    st.setAllowUnknownNamedParameters(true);
  }
  pluck(on = true): this {
    return this.setMode(on ? "pluck" : "object");
  }
  raw(on = true): this {
    return this.setMode(on ? "raw" : "object");
  }
  private setMode(mode: Mode): this {
    this.mode = mode;
    this.st.setReturnArrays(mode !== "object");
    return this;
  }
  run(...params: unknown[]): SqliteRunResult {
    const r = guarded(() => this.st.run(...spread(params)));
    return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
  }
  get(...params: unknown[]): unknown {
    const row = guarded(() => this.st.get(...spread(params)));
    return this.mode === "pluck" && row !== undefined ? (row as unknown[])[0] : row;
  }
  all(...params: unknown[]): unknown[] {
    const rows = guarded(() => this.st.all(...spread(params)));
    return this.mode === "pluck" ? rows.map((r) => (r as unknown[])[0]) : rows;
  }
  *iterate(...params: unknown[]): IterableIterator<unknown> {
    const it = guarded(() => this.st.iterate(...spread(params)));
    const pluck = this.mode === "pluck";
    try {
      for (;;) {
        const next = guarded(() => it.next());
        if (next.done) return;
        yield pluck ? (next.value as unknown[])[0] : next.value;
      }
    } finally {
      // A loop left early must reset the statement: an unfinished read keeps its snapshot of the WAL.
      it.return?.();
    }
  }
}

class NodeDatabase implements SqliteDatabase {
  private readonly control = new Map<string, NativeStatement>();
  private savepoints = 0;
  constructor(
    private readonly mod: NodeSqliteModule,
    private readonly db: NativeDatabase,
  ) {}

  open = true;
  get inTransaction(): boolean {
    return this.db.isTransaction;
  }
  prepare(sql: string): SqliteStatement {
    return new NodeStatement(guarded(() => this.db.prepare(sql)));
  }
  exec(sql: string): void {
    guarded(() => this.db.exec(sql));
  }
  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const st = this.prepare(`PRAGMA ${source}`);
    return options.simple === true ? st.pluck().get() : st.all();
  }
  function(name: string, fn: (...args: SqliteValue[]) => SqliteValue): void {
    guarded(() => this.db.function(name, { deterministic: true }, fn));
  }
  backup(file: string, onProgress?: (p: BackupProgress) => void): Promise<void> {
    let finished = false;
    const progress = (p: BackupProgress) => {
      finished = p.remainingPages === 0;
      onProgress?.(p);
    };
    // node:sqlite reports only the steps that leave pages to copy; the last one is reported here, as better-sqlite3 does.
    return this.mod.backup(this.db, file, { rate: BACKUP_PAGES_PER_STEP, progress }).then(
      (totalPages) => {
        if (!finished) progress({ totalPages, remainingPages: 0 });
      },
      (err: unknown) => {
        throw named(err);
      },
    );
  }
  close(): void {
    guarded(() => this.db.close());
    this.open = false;
  }

  /** BEGIN, COMMIT and the rest, prepared once: a small write is mostly their cost otherwise. */
  private run(sql: string): void {
    let st = this.control.get(sql);
    if (!st) this.control.set(sql, (st = guarded(() => this.db.prepare(sql))));
    const prepared = st;
    guarded(() => prepared.run());
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R> {
    const wrap =
      (begin: string) =>
      (...args: A): R =>
        this.db.isTransaction ? this.inSavepoint(fn, args) : this.inTransactionOf(begin, fn, args);
    return Object.assign(wrap("BEGIN"), { immediate: wrap("BEGIN IMMEDIATE") });
  }

  private inTransactionOf<A extends unknown[], R>(begin: string, fn: (...args: A) => R, args: A): R {
    this.run(begin);
    let result: R;
    try {
      result = fn(...args);
      this.run("COMMIT");
    } catch (err) {
      // A failed COMMIT may already have ended the transaction (SQLite rolls back on some errors).
      if (this.db.isTransaction) this.run("ROLLBACK");
      throw err;
    }
    return result;
  }

  private inSavepoint<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
    const name = `engram_${++this.savepoints}`;
    this.exec(`SAVEPOINT ${name}`);
    try {
      const result = fn(...args);
      this.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      if (this.db.isTransaction) this.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw err;
    } finally {
      this.savepoints--;
    }
  }
}

export function openNodeSqlite(mod: NodeSqliteModule, file: string, opts: SqliteOpenOptions): SqliteDatabase {
  if (opts.fileMustExist === true && file !== ":memory:" && !existsSync(file)) {
    throw Object.assign(new Error("unable to open database file"), { code: "SQLITE_CANTOPEN" });
  }
  return new NodeDatabase(mod, guarded(() => new mod.DatabaseSync(file, { readOnly: opts.readonly === true })));
}
