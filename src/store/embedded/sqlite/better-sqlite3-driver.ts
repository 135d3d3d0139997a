import type BetterSqlite3 from "better-sqlite3";
import type { BackupProgress, SqliteDatabase, SqliteOpenOptions, SqliteStatement, SqliteTransaction, SqliteValue } from "./sqlite-types.js";

export type BetterSqlite3Module = typeof BetterSqlite3;

/** Pages copied per backup step: a writer waits at most one step. */
const BACKUP_PAGES_PER_STEP = 256;

/** better-sqlite3's connection as the store's SqliteDatabase: its statements already have that shape. */
class BetterDatabase implements SqliteDatabase {
  constructor(private readonly db: BetterSqlite3.Database) {}
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }
  get open(): boolean {
    return this.db.open;
  }
  prepare(sql: string): SqliteStatement {
    return this.db.prepare(sql) as unknown as SqliteStatement;
  }
  exec(sql: string): void {
    this.db.exec(sql);
  }
  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    return this.db.pragma(source, options);
  }
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R> {
    return this.db.transaction(fn) as unknown as SqliteTransaction<A, R>;
  }
  function(name: string, fn: (...args: SqliteValue[]) => SqliteValue): void {
    this.db.function(name, { deterministic: true }, fn as (...a: unknown[]) => unknown);
  }
  async backup(file: string, onProgress?: (p: BackupProgress) => void): Promise<void> {
    let finished = false;
    const done = await this.db.backup(file, {
      progress: (p) => {
        finished = p.remainingPages === 0;
        onProgress?.(p);
        return BACKUP_PAGES_PER_STEP;
      },
    });
    // better-sqlite3 reports a step before it copies it; the finished copy is reported here, as node:sqlite's adapter does.
    if (!finished) onProgress?.({ totalPages: done.totalPages, remainingPages: 0 });
  }
  close(): void {
    this.db.close();
  }
}

export function openBetterSqlite3(Database: BetterSqlite3Module, file: string, opts: SqliteOpenOptions): SqliteDatabase {
  return new BetterDatabase(new Database(file, { readonly: opts.readonly === true, fileMustExist: opts.fileMustExist === true }));
}
