/**
 * The physical reference of a sweep row: what SQLite alone takes to rewrite
 * every record's payload column on this machine, now. One connection with
 * the store's own settings (WAL, synchronous NORMAL) reads every row's
 * payload, rewrites each through one prepared UPDATE in one transaction,
 * and closes, which folds the WAL back in as a store's close does. The
 * payload changes by one byte of trailing whitespace, so every row is
 * written and no trigger fires (as for a migration pass, which names no
 * mirrored column). A sweep judged against it is judged against the disk
 * and the CPU it ran on, not against a figure from another host.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openSqlite, type SqliteDatabase } from "../../src/store/embedded/index.js";

/** Rows rewritten, wall milliseconds, and this process's CPU milliseconds meanwhile (SQLite runs on this thread). */
export type PlainRewrite = { rows: number; ms: number; cpuMs: number };

/** Opens the store file as the store does (WAL, synchronous NORMAL), runs `work`, which says how many rows it wrote, and closes; timed with the CPU. */
function onPlainConnection(dataDir: string, work: (db: SqliteDatabase) => number): PlainRewrite {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const db = openSqlite(join(dataDir, "engram.db"));
  let rows = 0;
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    rows = work(db);
  } finally {
    db.close();
  }
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { rows, ms, cpuMs: (used.user + used.system) / 1000 };
}

export function plainRewrite(dataDir: string): PlainRewrite {
  return onPlainConnection(dataDir, (db) => {
    const all = db.prepare("SELECT rid, payload FROM records").raw().all() as [number, string][];
    const update = db.prepare("UPDATE records SET payload = ? WHERE rid = ?");
    let rows = 0;
    db.transaction(() => {
      for (const [rid, payload] of all) rows += update.run(`${payload} `, rid).changes;
    })();
    return rows;
  });
}

/**
 * The delete rows' reference: the records `where` selects deleted through
 * one prepared DELETE each in one transaction, the store's own triggers
 * (change log, term index, vector row) firing as for engram's deletes.
 * With `bare`, the triggers are dropped first (the copy is spoiled for
 * anything else): only the record rows and their indexes go, which is the
 * least any delete of records from this file can cost.
 */
export function plainDelete(dataDir: string, where: string, params: unknown[], bare = false): PlainRewrite {
  if (bare) {
    const db = openSqlite(join(dataDir, "engram.db"));
    try {
      const triggers = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[];
      for (const name of triggers) db.exec(`DROP TRIGGER "${name}"`);
    } finally {
      db.close();
    }
  }
  return onPlainConnection(dataDir, (db) => {
    const rids = db.prepare(`SELECT rid FROM records WHERE ${where}`).raw().all(...params) as [number][];
    const del = db.prepare("DELETE FROM records WHERE rid = ?");
    let rows = 0;
    db.transaction(() => {
      for (const [rid] of rids) rows += del.run(rid).changes;
    })();
    return rows;
  });
}
