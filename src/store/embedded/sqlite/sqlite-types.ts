/**
 * The part of a SQLite connection the embedded store uses, in the shape
 * better-sqlite3 gave it: prepared statements with `pluck`/`raw` modes,
 * transactions as wrapped functions, `pragma`, user functions and an
 * online backup. Each driver (driver.ts) provides it, so the store's code
 * never names a driver.
 */

/** A value SQLite binds or returns: BLOBs come back as Uint8Array (a Buffer from better-sqlite3). */
export type SqliteValue = null | number | bigint | string | Uint8Array;

export type SqliteRunResult = { readonly changes: number; readonly lastInsertRowid: number | bigint };

export interface SqliteStatement {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows come back as their first column's value. */
  pluck(on?: boolean): this;
  /** Rows come back as arrays of column values. */
  raw(on?: boolean): this;
}

/** A function run inside a transaction; `immediate` takes the write lock at BEGIN. A call inside another transaction runs as a savepoint. */
export type SqliteTransaction<A extends unknown[], R> = ((...args: A) => R) & { immediate(...args: A): R };

export type BackupProgress = { totalPages: number; remainingPages: number };

export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** `PRAGMA <source>`: every row, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R>;
  /** A deterministic SQL function backed by JavaScript (the term index's triggers call one). */
  function(name: string, fn: (...args: SqliteValue[]) => SqliteValue): void;
  /** An online copy of the database into `file`, a few pages per step so writers keep going. */
  backup(file: string, onProgress?: (p: BackupProgress) => void): Promise<void>;
  readonly inTransaction: boolean;
  /** False once closed. */
  readonly open: boolean;
  close(): void;
}

export type SqliteOpenOptions = {
  readonly?: boolean;
  /** Refuse (SQLITE_CANTOPEN) instead of creating a missing file. */
  fileMustExist?: boolean;
};
